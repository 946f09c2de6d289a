"""The pipeline run once on the tiny .test config, in a scratch copy, for every end-to-end
test module (they may change it, and each leaves it as a complete run again)."""

from __future__ import annotations

import pytest

from tests.support.processes import machine
from tests.support.workflow import CONSOLE, TIMING_RULES, copy_workflow, snakemake


@pytest.fixture(scope="session")
def workdir(tmp_path_factory, pytestconfig):
    """A scratch copy of the workflow after one complete run of the .test config: first
    what no timing job precedes, then the rest, the timing jobs among it, with the machine
    to itself under pytest-xdist (tests/conftest.py)."""
    work = copy_workflow(tmp_path_factory.mktemp("pipeline"))
    untimed = snakemake(work, "--omit-from", *TIMING_RULES)
    assert untimed.returncode == 0, untimed.stderr[-4000:]
    with machine(pytestconfig, alone=True):
        done = snakemake(work)
    assert done.returncode == 0, done.stderr[-4000:]
    (work / CONSOLE).write_text(untimed.stdout + untimed.stderr + done.stdout + done.stderr)
    return work
