"""The pipeline run once on the tiny .test config, in a scratch copy, for every end-to-end
test module (they may change it, and each leaves it as a complete run again)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.workflow.scratch import SNAKEMAKE, copy_workflow

CONSOLE = "console.log"  # what the complete run printed


def snakemake(workdir: Path, *args: str, config: str = ".test/config/config.yaml"):
    """Snakemake on the .test config (or `config`) in `workdir`, its output captured."""
    return subprocess.run(
        [*SNAKEMAKE, "--cores", "4", "--configfile", config, "--replace-workflow-config", *args],
        cwd=workdir, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    """A scratch copy of the workflow after one complete run of the .test config."""
    work = copy_workflow(tmp_path_factory.mktemp("pipeline"))
    done = snakemake(work)
    assert done.returncode == 0, done.stderr[-4000:]
    (work / CONSOLE).write_text(done.stdout + done.stderr)
    return work
