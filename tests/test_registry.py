"""The one registry: its facts, and a new algorithm reaching every table and figure."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from collectives import registry
from collectives.model import cost, theory
from collectives.model.topology import Topology
from collectives.registry import ALGORITHMS, NODE_SIZE, Algorithm, Cost, Parameter, Style
from collectives.run import cli
from collectives.run.bench import bench
from collectives.run.measure import UsageError, measure
from collectives.run.record import read_record
from collectives.study import aggregate, markdown, selection
from collectives.study.config import check
from collectives.study.figures import counts, crossover, hotspot, phase, style
from collectives.study.question import SEED_PAIR
from collectives.transport.dry import class_trace, dry_trace
from collectives.transport.trace import ClassTrace
from tests.support import dummy_algorithm
from tests.support.grid import GIVEN_FABRICS

DUMMY = Algorithm(
    "dummy", dummy_algorithm.allreduce, theory.naive, "a dummy", Style(6, "X", (0, (2, 2)))
)


def test_every_algorithm_states_its_cost_and_its_style_is_its_own():
    assert ALGORITHMS["ring"].cost == Cost("2(N-1)", "2(N-1)/N", "(N-1)/N")
    assert ALGORITHMS["hierarchical"].cost.latency == "2(G-1) + inter"
    styles = [(a.style.marker, a.style.dashes) for a in ALGORITHMS.values()]
    for index in range(2):  # colours: tests/study/figures/test_style.py
        assert len({style[index] for style in styles}) == len(styles)
    named = [a.style.colour for a in ALGORITHMS.values() if a.style.colour is not None]
    assert len(set(named)) == len(named)


def test_lookup_by_name_or_variant():
    assert registry.get("hierarchical-G8") is ALGORITHMS["hierarchical"]
    named = registry.variant_name("hierarchical", {"ranks_per_node": 8})
    assert named == "hierarchical-G8"
    assert registry.parse_variant(named) == ("hierarchical", {"ranks_per_node": 8})
    with pytest.raises(KeyError, match="'X3' names no parameter of hierarchical"):
        registry.parse_variant("hierarchical-X3")
    with pytest.raises(KeyError, match="valid: naive, ring"):
        registry.get("butterfly")


def test_a_missing_cost_line_is_named():
    broken = Algorithm("broken", pd.DataFrame, theory.naive, "broken", Style(0, "o", "-"))
    with pytest.raises(ValueError, match="broken: its module docstring has no 'Cost:"):
        _ = broken.cost


@pytest.fixture
def with_dummy(monkeypatch):
    monkeypatch.setitem(ALGORITHMS, "dummy", DUMMY)


def test_a_registered_algorithm_reaches_every_table_and_figure(with_dummy, tmp_path):
    names = ["ring", "recursive_doubling", "dummy"]
    plan = check(
        {"algorithms": names, "ranks": [2, 4], "elements": [1, 64, 4096], "dtypes": ["float64"],
         "fabrics": {"slow": {"alpha": 1e-5, "beta": 1e-9}}, "dtype": "float64", "figures": {}},
        tmp_path,
    )  # fmt: skip
    assert plan.algorithms == names
    records = [
        measure(name, ranks, elements).record
        for name in names
        for ranks in plan.ranks
        for elements in plan.elements
    ]
    table = aggregate.measurements_table(records)
    aggregate.check_runs(table)  # verified, and equal to the dummy's theory
    costs = cost.modeled_costs(table, GIVEN_FABRICS, names)
    crossover_table = cost.crossover_table(table, GIVEN_FABRICS, costs, SEED_PAIR)
    assert {"dummy_from_bytes", "dummy_to_bytes"} <= set(crossover_table.columns)
    assert "| dummy | float64 | rounds | 2(N-1) |" in markdown.cost_model_markdown(
        cost.cost_shape(table)
    )
    chosen = selection.selection_table(GIVEN_FABRICS, costs, "float64", ["mpich"])
    assert "dummy" not in set(chosen.algorithm)  # MPICH has no such algorithm
    plot = crossover.draw(costs, crossover_table, 4, "float64", names)
    assert "a dummy" in [t.get_text() for t in plot.figure.legends[0].get_texts()]
    for plot in (
        phase.draw(costs.assign(time_s=costs.time_s.where(costs.algorithm != "dummy", 0.0)),
                   "float64", names),  # the dummy made the cheapest everywhere
        counts.draw(table, 64, "float64", names),
        hotspot.draw([r for r in records if (r.ranks, r.elements) == (4, 64)]),
    ):  # fmt: skip
        texts = [t.get_text() for t in plot.figure.findobj(lambda o: hasattr(o, "get_text"))]
        assert any("dummy" in text for text in texts)
        assert "dummy" in set(plot.data.algorithm)
        style.save(plot, tmp_path / "figure.png")
    assert not math.isnan(costs[costs.algorithm == "dummy"].time_s.max())


IN_PIECES = Algorithm(
    "in_pieces", dummy_algorithm.allreduce_in_pieces, dummy_algorithm.in_pieces_theory,
    "in pieces", Style(6, "*", (0, (2, 1))),
    parameters=(Parameter("pieces", "K", "pieces sent one after another", default=2),),
)  # fmt: skip


def test_a_parameter_needs_nothing_outside_its_module_and_the_registry(
    monkeypatch, tmp_path, capsys
):
    monkeypatch.setitem(ALGORITHMS, "in_pieces", IN_PIECES)
    measured = measure("in_pieces", 4, 10, parameters={"pieces": 4}).record
    assert measured.matches_theory and measured.parameters == {"pieces": 4}
    assert measured.messages == 4 * 4 * 2  # per piece: 4 ranks, 2 steps
    assert measure("in_pieces", 4, 10).record.parameters == {"pieces": 2}  # its default
    with pytest.raises(UsageError, match="pieces does not apply to ring"):
        measure("ring", 3, 10, parameters={"pieces": 4})
    with pytest.raises(UsageError, match=r"in_pieces needs pieces at least 1 \(N=3\): got 0"):
        measure("in_pieces", 3, 10, parameters={"pieces": 0})

    output = tmp_path / "record.json"
    assert cli.main(["measure", "--algorithm", "in_pieces", "--ranks", "2", "--elements", "7",
                     "--pieces", "3", "--output", str(output)]) == 0  # fmt: skip
    assert read_record(output).parameters == {"pieces": 3}
    timed = bench(["ring", "in_pieces"], 2, [8], warmup=0, iterations=1, parameters={"pieces": 5})
    assert [r["parameters"] for r in timed["records"]] == [{}, {"pieces": 5}]
    with pytest.raises(UsageError, match="pieces applies to none of ring"):
        bench(["ring"], 2, [8], parameters={"pieces": 5})
    with pytest.raises(UsageError, match="ring is listed twice"):
        bench(["ring", "in_pieces", "ring"], 2, [8])

    plan = check(
        {"algorithms": ["ring", "in_pieces"], "pieces": [2, 3], "ranks": [2, 4], "elements": [8],
         "dtypes": ["float64"], "fabrics": {"slow": {"alpha": 1e-5, "beta": 1e-9}},
         "dtype": "float64", "figures": {}},
        tmp_path,
    )  # fmt: skip
    assert [v.name for v in plan.variants] == ["ring", "in_pieces", "in_pieces-K3"]
    assert plan.variants[2].arguments() == "--algorithm in_pieces --pieces 3"
    assert registry.parse_variant("in_pieces-K3") == ("in_pieces", {"pieces": 3})
    assert style.label("in_pieces-K3") == "in pieces (K=3)"
    table = aggregate.measurements_table([measured, read_record(output)])
    shown = table[["algorithm", "pieces"]].values.tolist()
    assert shown == [["in_pieces-K3", 3], ["in_pieces-K4", 4]]
    aggregate.check_runs(table)


def test_a_parameter_name_means_one_thing_and_names_are_canonical():
    by_name = registry.parameters_by_name()
    for entry in ALGORITHMS.values():
        for p in entry.parameters:  # the same parameter, with the algorithm's own default
            assert replace(by_name[p.name], default=p.default) == p, (entry.name, p.name)
        assert len({p.letter for p in entry.parameters}) == len(entry.parameters), entry.name
    both = {"channels": 4, "chunk_bytes": 65536}
    assert registry.variant_name("nccl_ring", both) == "nccl_ring-C4-K65536"
    assert registry.parse_variant("nccl_ring-C4-K65536") == ("nccl_ring", both)
    assert registry.variant_name("nccl_ring", {"channels": 2}) == "nccl_ring"  # its default
    for name in ("nccl_ring-C2", "nccl_ring-K65536-C4"):  # a default named; out of order
        with pytest.raises(KeyError, match="not a variant name"):
            registry.parse_variant(name)


SYMMETRY_POINTS = [
    # (N, ranks per node or None, elements): flat, unequal chunks (no shift: the whole
    # trace), on nodes, N not a power of two, a node size that is not one, ragged nodes (no
    # shift by whole nodes: the whole trace), N = 256
    (8, None, 64),
    (8, None, 61),
    (12, 4, 1200),
    (24, 3, 24 * 7),
    (10, 4, 40),
    (72, 4, 72 * 2 * 3),
    (256, 8, 256 * 2),
    (16, 4, 16 * 8192),  # hierarchical's shards cross by ring from here
]


def same_trace(first, second) -> bool:
    return all(
        np.array_equal(getattr(first, column), getattr(second, column))
        for column in ("offsets", "kind", "peer", "amount")
    )


@pytest.mark.parametrize("name", list(ALGORITHMS))
@pytest.mark.parametrize(("ranks", "per_node", "elements"), SYMMETRY_POINTS)
def test_a_declared_symmetry_holds_its_trace_by_classes_equal_to_the_whole(
    name, ranks, per_node, elements
):
    entry = ALGORITHMS[name]
    on_nodes = NODE_SIZE in entry.parameters
    if on_nodes and not per_node:
        pytest.skip(f"{name} runs on nodes")
    try:
        parameters = entry.resolve({NODE_SIZE.name: per_node} if on_nodes else {}, ranks)
    except ValueError:
        pytest.skip(f"{name} does not run on nodes of {per_node} at N={ranks}")
    topology = Topology(per_node)
    traced = entry.trace(ranks, elements, 4, parameters, topology)
    whole = dry_trace(entry.bind(**parameters), ranks, elements, 4)
    if isinstance(traced, ClassTrace):
        assert traced.period < ranks and traced.period % (per_node or 1) == 0
        traced = traced.expanded
    assert same_trace(traced, whole)


@pytest.mark.parametrize(
    ("name", "ranks", "elements", "period"),
    [("ring", 8, 16, 1), ("nccl_ring", 6, 24, 1), ("one_shot", 4, 5, 1), ("ring", 12, 24, 4)],
)
def test_the_symmetric_algorithms_are_held_by_their_classes(name, ranks, elements, period):
    entry = ALGORITHMS[name]
    traced = entry.trace(ranks, elements, 4, entry.resolve({}, ranks), Topology(period))
    assert isinstance(traced, ClassTrace) and traced.period == period
    assert len(traced.classes.kind) * ranks == len(traced.expanded.kind) * period


@pytest.mark.parametrize(
    ("name", "ranks", "elements", "per_node"),
    [("ring", 12, 24, 4), ("nccl_ring", 16, 2 * 16 * 8, 8), ("two_shot", 8, 16, 4)],
)
def test_classes_copied_out_to_whole_nodes_are_those_the_nodes_ranks_run(
    name, ranks, elements, per_node
):
    entry = ALGORITHMS[name]
    parameters = entry.resolve({}, ranks)
    traced = entry.trace(ranks, elements, 4, parameters, Topology(per_node))
    run = class_trace(entry.bind(**parameters), ranks, elements, 4, per_node)
    assert traced.period == per_node and same_trace(traced.classes, run.classes)


def test_a_wrongly_declared_symmetry_fails_its_size_checks():
    wrong = replace(ALGORITHMS["ring"], shift=lambda *_: 1)  # chunks of 3 and 2 elements
    with pytest.raises(ValueError, match="elements"):
        wrong.trace(8, 17, 4, {}, Topology())
