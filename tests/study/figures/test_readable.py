"""The print checker itself: each flaw it exists to catch is caught."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from collectives.study.figures.style import PAGE_WIDTH, Plot
from tests.support.readable import ciede2000, lab, problems, terms, undefined_terms


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
        (lambda fig, axis: axis.text(1.5, 2.9, "a note that runs past the panel's edge"),
         "lies outside"),
        (lambda fig, axis: axis.text(1.02, 0.5, "x", transform=axis.transAxes), "lies outside"),
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


@pytest.mark.parametrize(
    ("first", "second", "difference"),
    [((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
     ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
     ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
     ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644)],
)  # fmt: skip
def test_colour_differences_are_ciede2000s(first, second, difference):
    # pairs 1, 7, 17 and 25 of Sharma, Wu and Dalal's (2005) table of test data
    assert ciede2000(first, second) == pytest.approx(difference, abs=1e-4)
    assert lab("white") == pytest.approx((100.0, 0.0, 0.0), abs=1e-3)


def two_lines(colours, markers, second_y=(1, 2, 3, 4), labels=("a", "b")) -> list[str]:
    fig, axis = plt.subplots(figsize=(3.0, 2.0), layout="constrained")
    axis.plot([0, 1, 2, 3], [0, 1, 2, 3], color=colours[0], marker=markers[0], label=labels[0])
    axis.plot([0, 1, 2, 3], second_y, color=colours[1], marker=markers[1], label=labels[1])
    fig.legend(loc="outside lower center")
    found = problems(Plot(fig, pd.DataFrame()))
    plt.close(fig)
    return found


def test_legend_entries_a_reader_cannot_tell_apart_are_named():
    close = two_lines(["#1f77b4", "#2a7fbb"], ["o", "o"])
    assert any("legend entries 'a' and 'b': close colours" in line for line in close), close
    assert two_lines(["#1f77b4", "#2a7fbb"], ["o", "s"]) == []  # the marker tells them apart
    assert two_lines(["#1f77b4", "#d62728"], ["o", "o"]) == []


def test_a_series_hidden_under_another_is_named_unless_the_legend_says_so():
    under = two_lines(["C0", "C1"], ["o", "o"], second_y=(0, 1, 2, 3))
    assert any("series 'b' lies under 'a'" in line for line in under), under
    said = two_lines(["C0", "C1"], ["o", "o"], (0, 1, 2, 3), labels=("a = b", "b"))
    assert not any("lies under" in line for line in said), said
    distinct = two_lines(["C0", "C1"], ["o", "s"], second_y=(0, 1, 2, 3))  # both markers show
    assert not any("lies under" in line for line in distinct), distinct


def test_a_term_neither_the_caption_nor_the_glossary_defines_is_named():
    fig, axis = line_plot()
    axis.set_title("+resources\n|err| 19%, NVLS, ring on ndv2")
    axis.set_xlabel("message size (α-β)")
    plot = Plot(fig, pd.DataFrame())
    assert terms(plot) == {"+resources", "|err|", "NVLS", "α-β"}  # not names nor numbers
    found = undefined_terms(plot, "+resources: the ladder's rung; |err| the median error")
    plt.close(fig)
    assert [line.split("'")[1] for line in found] == ["NVLS", "α-β"]
