"""The one registry: its facts, and a new algorithm reaching every table and figure."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from collectives import registry
from collectives.model import cost, theory
from collectives.registry import ALGORITHMS, Algorithm, Cost, Style
from collectives.run.measure import measure
from collectives.study import aggregate, markdown, selection
from collectives.study.config import check
from collectives.study.figures import counts, crossover, hotspot, phase, style
from collectives.study.question import SEED_PAIR
from tests.support import dummy_algorithm
from tests.support.grid import GIVEN_FABRICS

DUMMY = Algorithm(
    "dummy", dummy_algorithm.allreduce, theory.naive, "a dummy", Style(3, "X", (0, (1, 1)))
)


def test_every_algorithm_states_its_cost_and_its_style_is_its_own():
    assert ALGORITHMS["ring"].cost == Cost("2(N-1)", "2(N-1)/N", "(N-1)/N")
    assert ALGORITHMS["hierarchical"].cost.latency == "2(G-1) + inter"
    styles = [(a.style.colour, a.style.marker, a.style.dashes) for a in ALGORITHMS.values()]
    for index in range(3):
        assert len({style[index] for style in styles}) == len(styles)


def test_lookup_by_name_or_variant():
    assert registry.get("hierarchical-G8") is ALGORITHMS["hierarchical"]
    assert registry.parse_variant(registry.variant_name("hierarchical", 8)) == ("hierarchical", 8)
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
