"""The print checker itself: each flaw it exists to catch is caught."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from collectives.study.figures.style import PAGE_WIDTH, Plot
from tests.support.readable import problems


def line_plot(width: float = 3.0) -> tuple:
    """A clean one-panel figure with a line through its middle."""
    fig, axis = plt.subplots(figsize=(width, 2.0), layout="constrained")
    axis.plot([0, 1, 2, 3], [0, 1, 2, 3], label="data")
    return fig, axis


@pytest.mark.parametrize(
    ("spoil", "problem"),
    [
        (lambda fig, axis: None, None),
        (lambda fig, axis: fig.set_figwidth(PAGE_WIDTH + 1), "wider than a page"),
        (lambda fig, axis: axis.set_title("small", fontsize=5), "5 pt text"),
        (lambda fig, axis: axis.set_xticklabels([]), "no x tick labels"),
        (lambda fig, axis: axis.legend(loc="center"), "a legend covers data"),
        (lambda fig, axis: axis.text(1.5, 1.5, "note", ha="center"), "text 'note' covers data"),
        (lambda fig, axis: axis.set_xticks([0, 0.01], ["a long label", "another one"]),
         "overlap"),
        (lambda fig, axis: fig.suptitle("title " * 40), "wider than a page"),
    ],
)  # fmt: skip
def test_each_flaw_is_named(spoil, problem):
    fig, axis = line_plot()
    spoil(fig, axis)
    found = problems(Plot(fig, pd.DataFrame()))
    plt.close(fig)
    if problem is None:
        assert found == []
    else:
        assert any(problem in line for line in found), found
