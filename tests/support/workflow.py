"""Scratch copies of the workflow, shared by the end-to-end tests (local and cluster)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
PNG = b"\x89PNG\r\n\x1a\n"


WORKFLOW = ("Snakefile", "workflow", "config", "profiles", ".test", "README.md", "docs")


def copy_workflow(target: Path, items: tuple[str, ...] = WORKFLOW) -> Path:
    """The workflow's files, with its default profile (and results/ nowhere), copied into
    `target` (made if missing)."""
    target.mkdir(parents=True, exist_ok=True)
    for item in items:
        source = REPO / item
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target / item)
    return target


# Two algorithms at the seed's (N, M) on one given fabric: for tests of how the workflow runs
# (stopping, resuming, damaged records), not of what it finds.
TINY_CONFIG = {
    "algorithms": ["ring", "recursive_doubling"],
    "ranks": [8],
    "elements": [1024],
    "dtypes": ["float64"],
    "fabrics": {"infiniband": {"alpha": 2.6e-6, "beta": 1.05e-10}},
    "dtype": "float64", "figures": {"crossover_ranks": 8, "counts_elements": 1024,
                "hotspot": {"ranks": 8, "elements": 1024},
                "headline": {"ranks": 8, "fabrics": ["infiniband"],
                             "algorithms": ["ring", "recursive_doubling"]}},
}  # fmt: skip
# The Quick start's command, aimed at the records and traces (`runs`, which `all` includes)
# and the tables short of the figures: a few jobs of seconds each. (A target names what must
# be rebuilt when missing: Snakemake rebuilds no missing intermediate file, such as
# measurements.csv, behind an up-to-date costs.csv.)
TINY_RUN = [
    *SNAKEMAKE, "--cores", "8", "runs", "results/tables/measurements.csv",
    "results/tables/costs.csv",
]  # fmt: skip


def tiny_workflow(target: Path) -> Path:
    """The workflow with TINY_CONFIG as its config/config.yaml, copied into `target`."""
    copy_workflow(target, ("Snakefile", "workflow", "profiles"))
    (target / "config").mkdir()
    (target / "config/config.yaml").write_text(yaml.safe_dump(TINY_CONFIG))
    return target


CONSOLE = "console.log"  # what the complete run printed
PROFILE = REPO / "profiles/slurm/profile.yaml"
# The timing jobs: the rules the SLURM profile submits with --exclusive.
TIMING_RULES = sorted(
    rule
    for rule, set_to in yaml.safe_load(PROFILE.read_text())["set-resources"].items()
    if "--exclusive" in set_to["slurm_extra"]
)


def snakemake(
    workdir: Path, *args: str, config: str = ".test/config/config.yaml",
    env: dict[str, str] | None = None,
):  # fmt: skip
    """Snakemake on the .test config (or `config`) in `workdir`, its output captured (`env`:
    the environment of it and its jobs, by default this one's)."""
    return subprocess.run(
        [*SNAKEMAKE, "--cores", "4", "--configfile", config, "--replace-workflow-config", *args],
        cwd=workdir, capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
