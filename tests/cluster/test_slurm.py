"""The pipeline through the SLURM profile, on a real one-node SLURM, equals a local run.

Brings the scheduler up with slurm-up.sh (skipped where it cannot: not root, no apt-get),
runs the cluster test config with `--profile profiles/slurm` and, at the same time, locally
with `--cores 1`, each in its own scratch copy, compares what they produced and brings the
scheduler down. Run with `pytest -m cluster` (deselected by default).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tests.support.workflow import PNG, REPO, SNAKEMAKE, copy_workflow

pytestmark = pytest.mark.cluster

HERE = Path(__file__).resolve().parent
CONFIG = REPO / ".test/config-cluster/config.yaml"
# Columns that are clock readings; everything else is counted, verified or derived.
TIMING = ["wall_seconds", "collective_seconds"]
# (how many iterations fill the minimum time, and how many launches the budget bought,
# are the clock's too)
WALLCLOCK_TIMING = ["time_median_s", "time_min_s", "low_s", "high_s", "iterations", "launches",
                    "algbw_GBps", "busbw_GBps", "ratio_to_mpi", "ratio_to_gloo"]  # fmt: skip


# Every figure but the headline is left out: figure jobs travel in the analysis submission
# like the tables' jobs, the pipeline test draws them all, and a dozen of them would double
# the time of this test.
def omitted() -> list[str]:
    """Every figure rule but the headline's (they come from the table of figures: Snakemake
    lists them)."""
    listed = subprocess.run(
        [*SNAKEMAKE, "--list-rules"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    figures = sorted(name for name in listed if name.startswith("figure_"))
    assert "figure_crossover" in figures, listed
    return [name for name in figures if name != "figure_crossover"]


SUBMITTED = re.compile(r"submitted with SLURM jobid (\d+) \(log: .*/slurm_logs/([^/]+)/")


def scratch_copy(target: Path) -> Path:
    """The workflow with the cluster test config as its config/config.yaml: remote jobs
    read the workflow's default config (--replace-workflow-config does not reach them)."""
    copy_workflow(target, ("Snakefile", "workflow", "config", "profiles"))
    shutil.copy(CONFIG, target / "config/config.yaml")
    return target


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*SNAKEMAKE, *args], cwd=workdir, capture_output=True, text=True, timeout=1200
    )


def failed_logs(workdir: Path) -> str:
    """The last lines of every job log that reports an error: Snakemake's own output names
    the failed job, its log says why."""
    found = []
    for log in sorted((workdir / "results/logs").rglob("*.log")):
        text = log.read_text(errors="replace")
        if "Error" in text:
            found.append(f"\n--- {log.relative_to(workdir)}:\n" + "\n".join(text.splitlines()[-8:]))
    return "".join(found)


@pytest.fixture(scope="module")
def scheduler():
    """A running slurmctld + slurmd on this machine for the module's tests."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    up = subprocess.run([HERE / "slurm-up.sh"], capture_output=True, text=True, timeout=900)
    if up.returncode == 2:
        pytest.skip(f"no SLURM here: {up.stderr.strip().splitlines()[-1]}")
    assert up.returncode == 0, up.stderr
    yield
    subprocess.run([HERE / "slurm-down.sh"], capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def runs(scheduler, tmp_path_factory):
    """The local run and the SLURM run of the same workflow, side by side: the SLURM run
    mostly waits on the scheduler, so the local one (for comparison) uses that time. Only
    clock readings can differ, and the tests compare everything else."""
    omit = omitted()
    local_work = scratch_copy(tmp_path_factory.mktemp("local"))
    slurm_work = scratch_copy(tmp_path_factory.mktemp("slurm"))
    local_run = subprocess.Popen(
        [*SNAKEMAKE, "--cores", "1", "--omit-from", *omit], cwd=local_work,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        on_cluster = snakemake(
            slurm_work, "--profile", "profiles/slurm",
            "--slurm-init-seconds-before-status-checks", "2", "--omit-from", *omit,
        )  # fmt: skip
        _, local_stderr = local_run.communicate(timeout=1200)
    finally:
        local_run.kill()
        local_run.wait()
    assert on_cluster.returncode == 0, on_cluster.stderr[-6000:] + failed_logs(slurm_work)
    assert local_run.returncode == 0, local_stderr[-4000:] + failed_logs(local_work)
    return local_work, slurm_work, SUBMITTED.findall(on_cluster.stderr)


@pytest.fixture(scope="module")
def local(runs):
    """The workflow's directory after the local run."""
    return runs[0]


@pytest.fixture(scope="module")
def on_slurm(runs):
    """The SLURM run's directory and the (job id, job name) of each submission."""
    return runs[1], runs[2]


def scontrol(job_id: str) -> dict[str, str]:
    """The scheduler's own record of a job (kept for MinJobAge after it ends)."""
    shown = subprocess.run(
        ["scontrol", "show", "job", job_id], capture_output=True, text=True, check=True
    ).stdout
    return dict(field.split("=", 1) for field in shown.split() if "=" in field)


def test_every_kind_of_job_went_through_the_scheduler(on_slurm):
    _, submissions = on_slurm
    names = [name for _, name in submissions]
    grid = [name for name in names if name.startswith("group_grid")]
    assert len(grid) == 1, names  # 22 measure jobs, one submission of up to 40
    assert any(name.startswith("group_analysis_aggregate") for name in names), names
    assert {"rule_bench", "rule_pingpong", "rule_exchange"} <= set(names), names
    assert len(submissions) <= 10  # 22 measure + 6 timing + ~16 analysis jobs
    for job_id, _ in submissions:
        assert scontrol(job_id)["JobState"] == "COMPLETED"


def test_mpi_jobs_ask_for_one_task_per_rank(on_slurm):
    _, submissions = on_slurm
    kinds = {}
    for job_id, name in submissions:
        job = scontrol(job_id)
        if name in ("rule_bench", "rule_pingpong", "rule_exchange"):
            transport = "mpi" if "mpi" in Path(job["StdOut"]).parent.name else "queue"
            kinds[(name, transport)] = (job["NumTasks"], job["CPUs/Task"])
    assert kinds == {
        ("rule_bench", "mpi"): ("2", "1"),  # mpiexec -n 2: two tasks
        ("rule_pingpong", "mpi"): ("2", "1"),
        ("rule_exchange", "mpi"): ("2", "1"),
        ("rule_bench", "queue"): ("1", "2"),  # forked ranks: one task, the node's CPUs
        ("rule_pingpong", "queue"): ("1", "2"),
        ("rule_exchange", "queue"): ("1", "2"),
    }


def test_measurements_equal_the_local_run_apart_from_timing(on_slurm, local):
    here = pd.read_csv(local / "results/tables/measurements.csv").drop(columns=TIMING)
    there = pd.read_csv(on_slurm[0] / "results/tables/measurements.csv").drop(columns=TIMING)
    assert len(here) == 22 and here.verified.all() and here.matches_theory.all()
    pd.testing.assert_frame_equal(here, there)


def test_wall_clock_runs_count_the_same(on_slurm, local):
    here = pd.read_csv(local / "results/tables/wallclock.csv")
    there = pd.read_csv(on_slurm[0] / "results/tables/wallclock.csv")
    assert set(here.transport) == {"queue", "mpi"} and here.verified.all()
    pd.testing.assert_frame_equal(
        here.drop(columns=WALLCLOCK_TIMING), there.drop(columns=WALLCLOCK_TIMING)
    )


def test_the_same_tables_and_figures_are_produced(on_slurm, local):
    def produced(work: Path) -> list[str]:
        return sorted(
            str(path.relative_to(work / "results"))
            for folder in ("tables", "figures", "fabrics", "selection")
            if (work / "results" / folder).is_dir()  # selection/: only with libraries:
            for path in (work / "results" / folder).rglob("*")
        )

    assert produced(local) == produced(on_slurm[0])
    assert "figures/crossover.png" in produced(local)  # the one figure drawn here
    for path in (on_slurm[0] / "results/figures").glob("*.png"):
        assert path.read_bytes().startswith(PNG), path


def test_what_counts_alone_decides_is_identical(on_slurm, local):
    """Tables from counts and given fabrics only (the measured local fabrics differ by
    clock noise): byte for byte."""
    for name in ("seed_check.md", "cost_model.md"):
        assert (local / "results/tables" / name).read_text() == (
            on_slurm[0] / "results/tables" / name
        ).read_text(), name
    given = [
        pd.read_csv(work / "results/tables/costs.csv").query("fabric == 'infiniband'")
        for work in (local, on_slurm[0])
    ]
    assert len(given[0]) > 0
    pd.testing.assert_frame_equal(given[0], given[1])


def test_a_second_profile_run_has_nothing_to_do(on_slurm):
    again = snakemake(
        on_slurm[0], "--profile", "profiles/slurm", "--dry-run", "--omit-from", *omitted()
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert "Nothing to be done" in again.stdout + again.stderr
