"""The closed loop's tables: the clock's selection from forced runs, the files' names for a
size, and the tuned-vs-default rows with their speedups' intervals."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from collectives.run.bench import make_timing, switched_entry
from collectives.run.libraries import DEFAULT
from collectives.run.record import Record
from collectives.study import tuning
from collectives.transport.accounting import COUNT_FIELDS

SIZES = [1, 64, 4096, 262144]


def forced_times() -> dict:
    """Recursive doubling fastest up to 64 elements, the ring from 4096 (and a slow
    Rabenseifner), for one library at N = 4."""
    rd = {1: 1e-6, 64: 2e-6, 4096: 5e-5, 262144: 8e-3}
    ring = {1: 3e-6, 64: 4e-6, 4096: 3e-5, 262144: 4e-3}
    rab = {m: 2 * t for m, t in ring.items()}
    return {("openmpi", 4, "recursive_doubling"): rd, ("openmpi", 4, "ring"): ring,
            ("openmpi", 4, "rabenseifner"): rab}  # fmt: skip


def test_the_clock_switches_at_the_geometric_middle():
    table = tuning.clock_selection(forced_times(), itemsize=8)
    assert list(table.algorithm) == ["recursive_doubling", "ring"]
    assert table.min_bytes.iloc[0] == 0 and pd.isna(table.max_bytes.iloc[-1])
    assert table.max_bytes.iloc[0] == int(math.sqrt(64 * 4096)) * 8  # 512 elements
    assert table.min_bytes.iloc[1] == table.max_bytes.iloc[0] + 1


def test_the_library_s_own_choice_is_a_candidate_where_it_is_fastest():
    forced = forced_times()
    forced[("openmpi", 4, "default")] = {1: 5e-7, 64: 3e-6, 4096: 4e-5, 262144: 5e-3}
    table = tuning.clock_selection(forced, itemsize=8)
    assert list(table.algorithm) == ["default", "recursive_doubling", "ring"]
    assert tuning.named(table, 4, 8) == "default"


def test_an_algorithm_the_library_did_not_run_at_a_size_is_no_candidate_there():
    forced = forced_times()
    del forced[("openmpi", 4, "ring")][262144]  # the probe saw something else run there
    table = tuning.clock_selection(forced, itemsize=8)
    assert tuning.named(table, 4, 4096 * 8) == "ring"
    assert tuning.named(table, 4, 262144 * 8) == "recursive_doubling"  # rabenseifner: 8e-3


def test_a_selection_names_the_rules_of_the_largest_n_below():
    table = tuning.clock_selection(forced_times(), itemsize=8)
    assert tuning.named(table, 4, 8) == "recursive_doubling"
    assert tuning.named(table, 6, 10**6) == "ring"  # N = 6 follows N = 4's rules
    assert tuning.named(table, 2, 8) is None  # no rules at or below N = 2


def timed(seconds: dict[int, float], spread: float = 0.01) -> dict:
    """Timings of three launches of three blocks of three iterations each around `seconds`
    per M."""
    wobble = 1 + spread * np.sin(np.arange(27))
    return {m: make_timing(t * wobble, [3] * 9, [3] * 3, 1, 8 * m, 4) for m, t in seconds.items()}


def test_tuned_rows_carry_speedups_their_intervals_and_names():
    forced = forced_times()
    runs = {("openmpi", f"force-{a}", 4): timed(t) for (_, _, a), t in forced.items()}
    runs[("openmpi", "force-default", 4)] = timed({m: 9.0 for m in SIZES})  # never fastest
    best = {m: min(t[m] for t in forced.values()) for m in SIZES}
    runs[("openmpi", "default", 4)] = timed({m: 2 * t for m, t in best.items()})
    runs[("openmpi", "clock", 4)] = timed({m: 1.1 * t for m, t in best.items()})
    runs[("openmpi", "model", 4)] = timed(forced[("openmpi", 4, "recursive_doubling")])
    observed = {("openmpi", "clock", 4): {64: ["recursive_doubling"], 4096: ["ring"]}}
    clock = tuning.clock_selection(forced, itemsize=8)
    model = clock.assign(algorithm="recursive_doubling")
    table = tuning.tuned_vs_default(runs, observed, {"model": model, "clock": clock},
                                    {"openmpi": "Open MPI v5.0.11"}, itemsize=8)  # fmt: skip
    assert len(table) == len(SIZES)
    assert table.clock_speedup.to_numpy() == pytest.approx(2 / 1.1)
    assert (table.clock_speedup_low < table.clock_speedup).all()
    assert (table.clock_speedup < table.clock_speedup_high).all()
    assert table.clock_faster.all() and not table.clock_slower.any()  # 1.8x, beyond ±2%
    # the model's recursive doubling ties the default (2 x the ring's 4e-3 s) at the largest
    assert list(table.model_faster) == [True, True, True, False]
    assert list(table.model_slower) == [False, False, False, False]
    assert list(table.clock_algorithm) == ["recursive_doubling"] * 2 + ["ring"] * 2
    assert list(table.clock_observed) == ["", "recursive_doubling", "ring", ""]
    assert "default_s" in table and (table.default_s < 1).all()  # the run beside the tuned
    assert list(table.clock_obeyed) == [None, True, True, None]
    summary = tuning.summary(table)
    assert (summary.library.item(), summary.ranks.item()) == ("Open MPI", 4)
    assert summary.clock_median_speedup.item() == pytest.approx(2 / 1.1)
    assert (summary.clock_faster.item(), summary.clock_slower.item()) == (4, 0)
    assert (summary.checked.item(), summary.obeyed.item()) == (2, 2)


def switched_document(times: dict[str, dict[int, float]], verified: bool = True) -> dict:
    """A forced run's bench document: MPI_Allreduce switched to each algorithm."""
    records = []
    for algorithm, seconds in times.items():
        for m, timing in timed(seconds).items():
            records.append(
                Record(
                    algorithm=switched_entry(algorithm), parameters={}, ranks=4, elements=m,
                    dtype="float64", itemsize=8, seed=0, data="int", transport="mpi",
                    library=True, **dict.fromkeys(COUNT_FIELDS), bytes_sent=None,
                    bytes_recv=None, elements_reduced=None, trace=None, theory=None,
                    link_classes=None, matches_theory=None, verified=verified,
                    max_abs_error=0.0, ranks_agree=verified, wrong_ranks=[],
                    wall_seconds=None, collective_seconds=None, timing=timing, versions={},
                ).to_dict()
            )  # fmt: skip
    return {"records": records}


def test_a_forced_run_s_switched_entries_stand_for_the_forced_settings():
    forced = forced_times()
    document = switched_document({a: t for (_, _, a), t in forced.items()})
    by_setting = tuning.setting_timings(tuning.FORCED, document)
    assert sorted(by_setting) == ["force-rabenseifner", "force-recursive_doubling", "force-ring"]
    ring = by_setting["force-ring"]
    assert {m: t.time_median_s for m, t in ring.items()} == pytest.approx(
        forced[("openmpi", 4, "ring")], rel=0.02
    )
    plain = tuning.setting_timings("clock", switched_document({"ring": forced_times()[
        ("openmpi", 4, "ring")]}))  # fmt: skip
    assert list(plain) == ["clock"]
    with pytest.raises(ValueError, match=r"MPI_Allreduce\[ring\] at M=1 gave a wrong sum"):
        tuning.setting_timings(tuning.FORCED, switched_document({"ring": {1: 1e-6}}, False))


def test_a_forced_probe_that_saw_another_algorithm_is_named():
    probe = {"ranks": 4, "sizes": [
        {"elements": 64, "switched": "ring", "verified": True, "algorithms": ["ring"]},
        {"elements": 64, "switched": "recursive_doubling", "verified": True,
         "algorithms": ["ring"]},
        {"elements": 64, "switched": "default", "verified": True, "algorithms": ["ring"]},
        {"elements": 6, "switched": "ring", "verified": True, "algorithms": []},
    ]}  # fmt: skip
    observed = tuning.setting_observed(tuning.FORCED, probe)
    assert observed["force-ring"] == {64: ["ring"], 6: []}
    assert tuning.disobeyed("openmpi", observed) == [("force-recursive_doubling", 64, ["ring"])]
    probe["sizes"][0]["verified"] = False
    with pytest.raises(ValueError, match="wrong sum under force-ring at M=64"):
        tuning.setting_observed(tuning.FORCED, probe)


ALGORITHMS = ["ring", "recursive_doubling", "one_shot"]  # one-shot is no library's


def test_a_library_s_forced_runs_switch_where_it_can_else_force_one_at_a_time():
    libraries = ["mpich", "impi"]
    # MPICH changes its algorithm at run time and can leave a size range to its own choice
    assert tuning.forced_algorithms(ALGORITHMS, libraries, "mpich") == [
        "ring", "recursive_doubling", DEFAULT,
    ]  # fmt: skip
    assert tuning.forced_settings(ALGORITHMS, libraries, "mpich") == [tuning.FORCED]
    assert tuning.switch_option(ALGORITHMS, libraries, "mpich", tuning.FORCED) == (
        f"--switch ring,recursive_doubling,{DEFAULT}"
    )
    assert tuning.switch_option(ALGORITHMS, libraries, "mpich", "default") == ""
    # Intel MPI can do neither: one launch forcing each algorithm
    assert tuning.forced_settings(ALGORITHMS, libraries, "impi") == [
        "force-ring", "force-recursive_doubling",
    ]  # fmt: skip
    keys = tuning.tuning_keys(ALGORITHMS, libraries, [2, 4], [tuning.FORCED])
    assert keys == [
        ("mpich", "forced", 2), ("mpich", "forced", 4),
        ("impi", "force-ring", 2), ("impi", "force-ring", 4),
        ("impi", "force-recursive_doubling", 2), ("impi", "force-recursive_doubling", 4),
    ]  # fmt: skip


def test_each_setting_s_launch_options():
    assert tuning.setting_options(tuning.FORCED, None) == f"--force {DEFAULT}"
    assert tuning.setting_options("force-ring", None) == "--force ring"
    assert tuning.setting_options("model", ["a.json", "b.txt"]) == "--selection a.json"
    assert tuning.setting_options("default", None) == ""
    with pytest.raises(ValueError, match="a clock run needs its selection file"):
        tuning.setting_options("clock", [])


def test_the_setting_pattern_names_every_setting_and_nothing_else():
    pattern = re.compile(f"(?:{tuning.setting_pattern()})")
    for setting in [*tuning.SETTINGS, tuning.FORCED, tuning.force_setting("ring")]:
        assert pattern.fullmatch(setting)
    assert not pattern.fullmatch("force-") and not pattern.fullmatch("tuned")
    forced = re.compile(f"(?:{tuning.forced_pattern()})")
    assert forced.fullmatch(tuning.FORCED) and forced.fullmatch("force-ring")
    assert not any(forced.fullmatch(setting) for setting in tuning.SETTINGS)
