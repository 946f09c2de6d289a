"""What every figure shares: each algorithm's colour, its own, as the registry grows."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from collectives import registry
from collectives.registry import ALGORITHMS, Style
from collectives.study.figures import style


def test_every_algorithm_has_a_colour_of_its_own():
    colours = {tuple(style.colour(name)) for name in ALGORITHMS}
    assert len(colours) == len(ALGORITHMS)


def test_a_new_algorithm_without_a_colour_gets_one_no_other_has(monkeypatch):
    grown = dict(ALGORITHMS)
    for count in range(3):  # past the colour-blind palette's ten
        name = f"new_{count}"
        grown[name] = replace(ALGORITHMS["ring"], name=name, style=Style(None, "X", "-"))
    monkeypatch.setattr(registry, "ALGORITHMS", grown)
    indices = style.colour_indices(grown)
    assert sorted(indices.values()) == list(range(len(grown)))  # none shared, none skipped
    assert {name: indices[name] for name in ALGORITHMS} == {
        name: entry.style.colour for name, entry in ALGORITHMS.items()
    }  # the named ones keep theirs
    colours = np.array([style.colour(name) for name in grown])
    distances = np.linalg.norm(colours[:, None] - colours[None], axis=-1)
    assert distances[~np.eye(len(grown), dtype=bool)].min() > 0.05  # told apart


def test_a_free_colour_fills_the_first_gap():
    ring, naive = ALGORITHMS["ring"], ALGORITHMS["naive"]
    algorithms = {
        "a": replace(ring, style=Style(1, "o", "-")),
        "b": replace(naive, style=Style(None, "s", "-")),
        "c": replace(ring, style=Style(0, "D", "-")),
        "d": replace(naive, style=Style(None, "v", "-")),
    }
    assert style.colour_indices(algorithms) == {"a": 1, "b": 2, "c": 0, "d": 3}
