"""The SLURM profile as Snakemake reads it: every job of the default run travels in its
rule's group, or is a timing job the profile gives a node of its own."""

from __future__ import annotations

import re
import subprocess

from tests.support.workflow import SNAKEMAKE, TIMING_RULES, copy_workflow

TARGETS = {"all"}  # the Snakefile's localrules: they run nothing


def submissions(tmp_path) -> tuple[list[str], list[str]]:
    """The default run's submissions under the profile (a dry run, no SLURM needed): the
    groups, and the rules of the jobs submitted alone."""
    workdir = copy_workflow(tmp_path / "repo")
    run = subprocess.run(
        [*SNAKEMAKE, "--profile", "profiles/slurm", "--dry-run", "--quiet", "progress"],
        cwd=workdir, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    groups = re.findall(r"^\[[^\]]+\] Group job (\S+)", run.stdout, re.MULTILINE)
    alone = re.findall(r"^Job \d+: (\w+): ", run.stdout, re.MULTILINE)  # a group's are indented
    return groups, alone


def test_every_job_travels_in_a_group_or_alone_as_a_timing_job(tmp_path):
    groups, alone = submissions(tmp_path)
    assert set(alone) - TARGETS == set(TIMING_RULES)
    assert {"grid", "setup", "analysis", "tuning", "results"} == set(groups)
    assert groups.count("analysis") == 1  # the analysis is one submission
