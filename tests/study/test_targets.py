"""What the rules expand a plan into: the grid's files, each target's outputs, and the timing
jobs' options, with Snakemake's own wildcards; every expectation is written out by hand."""

from __future__ import annotations

try:  # where Snakemake 9's later releases keep its named lists; its first ones, in io
    from snakemake.iocontainers import InputFiles, Wildcards
except ImportError:
    from snakemake.io import InputFiles, Wildcards

from collectives.study import targets
from collectives.study.config import Plan, Variant

from .test_jobs import wallclock

PINGPONG = {"sizes": [1, 8, 64], "iterations": 5, "launches": 3, "agreement": 0.2}
CONFIG = {
    "seed": 7,
    "fabrics": {
        "local": {"pingpong": PINGPONG},
        "local-mpi": {"pingpong": {**PINGPONG, "library": "mpich"}},
        "nvlink": {"alpha": 1e-6, "beta": 1e-11},
        "ib": {"measurements": "logs/ib.txt"},
    },
}


def plan(libraries=("mpich",), timed=True, **changes) -> Plan:
    """ring, recursive doubling and one-shot at N = 2 and 4, M = 1 (the budget of 216
    points x ranks that tests/study/test_jobs.py adds up), or as `changes` say."""
    given = dict(
        variants=[Variant("ring"), Variant("recursive_doubling"), Variant("one_shot")],
        ranks=[2, 4], elements=[1], dtypes=["float64"],
        fabrics={"local": "pingpong", "local-mpi": "pingpong", "nvlink": "given", "ib": "measured"},
        figures={}, wallclock=wallclock() if timed else None,
        libraries={name: {} for name in libraries},
    )  # fmt: skip
    return Plan(**(given | changes))


def of(plan_: Plan) -> targets.Targets:
    return targets.Targets(plan_, CONFIG, runtime_minutes=2)


def wildcards(**values: str) -> Wildcards:
    return Wildcards(fromdict=values)


def test_the_grid_lists_each_variant_where_it_runs():
    grid = plan(variants=[Variant("ring"), Variant("hierarchical", (("ranks_per_node", 2),))],
                ranks=[2, 3], elements=[1, 8])  # fmt: skip
    run = "results/runs/float64/{}/N{}_M{}"
    expected = [("ring", 2, 1), ("ring", 2, 8), ("ring", 3, 1), ("ring", 3, 8),
                ("hierarchical-G2", 2, 1), ("hierarchical-G2", 2, 8)]  # fmt: skip
    assert of(grid).records() == [run.format(*point) + ".json" for point in expected]
    assert of(grid).traces() == [run.format(*point) + ".trace.npz" for point in expected]
    assert of(grid).measured_files() == of(grid).records() + of(grid).traces()
    assert of(grid).records_at(3, 8, "float64") == ["results/runs/float64/ring/N3_M8.json"]
    arguments = of(grid).variant_arguments(wildcards(algorithm="hierarchical-G2"))
    assert arguments == "--algorithm hierarchical --ranks-per-node 2"


def test_a_fabric_is_fitted_from_its_own_files_only():
    mine = of(plan())
    assert mine.fabric_measurements(wildcards(fabric="local")) == [
        "results/pingpong/local.csv", "results/pingpong/local.reduce.csv"]  # fmt: skip
    assert mine.fabric_measurements(wildcards(fabric="ib")) == ["logs/ib.txt"]
    assert mine.fabric_measurements(wildcards(fabric="nvlink")) == []
    assert mine.fabric_config(wildcards(fabric="nvlink")) == '{"alpha": 1e-06, "beta": 1e-11}'
    assert mine.fabric_files(("measured",)) == ["results/fabrics/ib.json"]
    assert len(mine.fabric_files()) == len(mine.replay_tables()) == 4


def test_a_timing_job_takes_its_settings_from_its_ping_pong_and_its_share_of_the_budget():
    mine = of(plan())
    pingpong = wildcards(fabric="local")
    exchange = wildcards(transport="mpi", ranks="4")  # the mpi transport's: local-mpi
    assert mine.pingpong_sizes(pingpong) == mine.pingpong_sizes(exchange) == "1,8,64"
    assert mine.pingpong_iterations(exchange) == 5
    # 3 sizes x 2 ranks of 216: 2.78 s of the 100; the exchange's 3 x 4: 5.56 s
    assert mine.calibration_options(pingpong) == (
        "--launches 3 --agreement 0.2 --budget 2.8 --narrow=--sizes"
    )
    assert "--budget 5.6 " in mine.calibration_options(exchange)
    assert mine.pingpong_library(pingpong) == []
    assert mine.pingpong_library(wildcards(fabric="local-mpi")) == ["resources/mpi/mpich.json"]


def test_a_bench_and_a_library_run_share_the_budget_by_their_points():
    mine = of(plan())
    # a bench on MPI at N = 2: (2 algorithms + MPI_Allreduce) x 4 sizes x 2 ranks = 24 of 216
    bench = mine.bench_options(wildcards(transport="mpi", ranks="2"))
    assert bench == "--launches 3 --budget 11.1 --bound 0.25 --narrow=--elements"
    # the compared runs (default, model, clock: 4 sizes each) at N = 2: 24 too; the forced
    # run switches among ring, recursive doubling and MPICH's own: 12 points, 24
    compared = mine.bench_options(wildcards(library="mpich", ranks="2"))
    forced = mine.bench_options(wildcards(library="mpich", setting="forced", ranks="2"))
    assert compared == forced == bench
    assert mine.bench_peers(wildcards(transport="mpi")) == "mpi"
    assert mine.bench_peers(wildcards(transport="queue")) == ""


def test_a_library_run_is_its_bench_under_the_librarys_mpiexec():
    mine = of(plan())
    job = wildcards(library="mpich", setting="default", ranks="2")
    given = InputFiles(fromdict={"library": "resources/mpi/mpich.json",
                                 "model": ["model.txt"], "clock": ["clock.txt"]})  # fmt: skip
    command = mine.forced_command(job, given)
    assert command.startswith("collectives mpiexec --library resources/mpi/mpich.json --ranks 2")
    assert "-- bench --transport mpi --ranks 2 --peers mpi --elements 1,16,256,4096" in command
    assert command.endswith("--seed 7 --warmup 1 --iterations 2 --rounds 1 --min-time 0.0"
                            " --timeout 2m")  # fmt: skip
    compared = mine.compared_commands(job, given).split(" :: ")
    assert [run.split(" -- bench")[0].split("--ranks 2")[1].strip() for run in compared] == [
        "", "--selection model.txt", "--selection clock.txt"]  # fmt: skip
    forced = wildcards(library="mpich", setting="forced", ranks="2")
    assert mine.switch_option(forced).startswith("--switch")
    assert mine.switch_option(job) == ""


def test_a_librarys_model_selection_comes_from_its_own_ping_pong():
    mine = of(plan())
    assert mine.model_fabric("mpich") == "local-mpi"  # its own point-to-point
    assert mine.selection_files("mpich", "model")[0].startswith("results/selection/local-mpi/")
    assert mine.selection_files("mpich", "clock")[0].startswith("results/selection/clock/")
    assert [key for key in mine.selection_keys() if key[0] == "ib"] == [("ib", "mpich")]


SECTIONS = {"crossover": "study", "wallclock": "wallclock", "tuned": "tuning", "gpu": "gpu"}


def test_each_target_holds_its_sections_tables_and_figures_only_where_the_config_has_it():
    mine = of(plan())
    study = mine.study_outputs(SECTIONS)
    assert "results/tables/costs.csv" in study and "results/figures/crossover.pdf" in study
    assert not [path for path in study if "wallclock" in path or "gpu" in path]
    timed = mine.wallclock_outputs(SECTIONS)
    assert "results/tables/tuned_vs_default.csv" in timed
    assert "results/figures/tuned.csv" in timed and "results/figures/wallclock.png" in timed
    untuned = of(plan(libraries=())).wallclock_outputs(SECTIONS)
    assert "results/figures/wallclock.png" in untuned
    assert not [path for path in untuned if "tuned" in path]
    assert of(plan(timed=False)).wallclock_outputs(SECTIONS) == []
    assert mine.gpu_outputs(SECTIONS) == []  # no GPU systems
    assert mine.wallclock_runs() == [
        "results/wallclock/queue/N2.json", "results/wallclock/queue/N4.json",
        "results/wallclock/mpi/N2.json", "results/wallclock/mpi/N4.json"]  # fmt: skip


def test_the_claims_read_only_tables_this_run_makes(tmp_path):
    untimed = of(plan(timed=False)).claim_tables(SECTIONS)
    assert "results/tables/costs.csv" in untimed
    assert not [path for path in untimed if "wallclock" in path]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/b.md").touch()
    (tmp_path / "docs/a.md").touch()
    assert targets.claim_pages(tmp_path) == [
        str(tmp_path / "docs/a.md"),
        str(tmp_path / "docs/b.md"),
    ]
    (tmp_path / "README.md").touch()
    assert targets.claim_pages(tmp_path)[0] == str(tmp_path / "README.md")
