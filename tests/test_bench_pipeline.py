"""The pipeline benchmark's config edits, on the shipped and the tiny config: the fabric and
the workload it adds pass the config check and leave every other key as it was (a broken
edit would otherwise show only after a cold run of the pipeline)."""

from __future__ import annotations

import copy
import importlib.util
import shutil
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from collectives.study.config import check, validate_schema

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
SPEC = importlib.util.spec_from_file_location("bench", REPO / "benchmarks/bench_pipeline.py")
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)


@pytest.mark.parametrize("config_file", ["config/config.yaml", ".test/config/config.yaml"])
def test_the_added_fabric_and_workload_pass_the_config_check(tmp_path, config_file):
    path = tmp_path / "config.yaml"
    shutil.copy(REPO / config_file, path)
    before = yaml.safe_load(path.read_text())
    fabric, workload = bench.add_fabric(path), bench.add_workload(path)
    after = yaml.safe_load(path.read_text())
    validate_schema(after, SCHEMA)
    filled = copy.deepcopy(after)
    validate(filled, str(SCHEMA))  # as the workflow does: fills in the defaults
    check(filled, REPO)  # relative paths of both configs are relative to the repository
    assert after["fabrics"].pop(fabric) == bench.GIVEN
    added = after["workloads"].pop(workload)
    assert added not in before["workloads"].values()
    assert after == before


def test_jobs_run_reads_the_progress_line():
    assert bench.jobs_run("1 of 15 steps (7%) done\n15 of 15 steps (100%) done\n") == 15
    assert bench.jobs_run("1 of 1 step (100%) done\n") == 1
    assert bench.jobs_run("Nothing to be done (all requested files are present).") == 0
