"""The pipeline run once on the tiny .test config, in a scratch copy, for every end-to-end
test module (they may change it, and each leaves it as a complete run again)."""

from __future__ import annotations

import pytest

from tests.support.workflow import CONSOLE, copy_workflow, snakemake


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    """A scratch copy of the workflow after one complete run of the .test config."""
    work = copy_workflow(tmp_path_factory.mktemp("pipeline"))
    done = snakemake(work)
    assert done.returncode == 0, done.stderr[-4000:]
    (work / CONSOLE).write_text(done.stdout + done.stderr)
    return work
