"""What every figure must satisfy to be printed: drawn at most a page wide, no text below
7 pt at that width, tick labels on every axis that shows data, no two texts on top of each
other, no legend or annotation on top of the data (measured in display coordinates after
drawing), no two legend entries a reader cannot tell apart (colours within a CIEDE2000
difference of 10, drawn alike), and no series hidden under another drawn alike that
the legend does not say it equals."""

from __future__ import annotations

import math
import re

import numpy as np
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from collectives.study.figures.style import GUIDE, PAGE_WIDTH, SMALLEST_FONT, Plot

SAMPLES_PER_SEGMENT = 16  # points sampled along each drawn line segment
TOLD_APART = 10.0  # CIEDE2000 difference below which two colours of one marker are confused


def data_points(axis) -> np.ndarray:
    """Display coordinates of the data drawn in `axis`: line vertices and points along
    their segments, scatter offsets, and the corners and centre of every bar."""
    found = []
    for line in axis.get_lines():
        if line.get_gid() == GUIDE or not line.get_visible():
            continue
        xy = line.get_transform().transform(np.column_stack(line.get_data()).astype(float))
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) == 0:
            continue
        found.append(xy)
        if line.get_linestyle() not in ("None", "none", "", " ") and len(xy) > 1:
            steps = np.linspace(0, 1, SAMPLES_PER_SEGMENT)[:, None, None]
            found.append((xy[:-1] + steps * (xy[1:] - xy[:-1])).reshape(-1, 2))
    for collection in axis.collections:
        if collection.get_gid() == GUIDE or not collection.get_visible():
            continue
        if isinstance(collection, PathCollection) and len(collection.get_offsets()):
            found.append(collection.get_offset_transform().transform(collection.get_offsets()))
    for patch in axis.patches:
        if isinstance(patch, Rectangle) and patch.get_gid() != GUIDE and patch.get_visible():
            box = patch.get_window_extent()
            xs = (box.x0, box.x1, (box.x0 + box.x1) / 2)
            ys = (box.y0, box.y1, (box.y0 + box.y1) / 2)
            found.append(np.array([(x, y) for x in xs for y in ys]))
    if not found:
        return np.empty((0, 2))
    points = np.concatenate(found)
    return points[_inside(axis.get_window_extent(), points)]


def _inside(box: Bbox, points: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """Which points lie in `box` shrunk by `margin` pixels (Bbox.contains takes scalars)."""
    x, y = points[:, 0], points[:, 1]
    return (
        (x >= box.x0 + margin) & (x <= box.x1 - margin)
        & (y >= box.y0 + margin) & (y <= box.y1 - margin)
    )  # fmt: skip


def _within(inner: Bbox, outer: Bbox, slack: float = 1.0) -> bool:
    """Whether `inner` lies inside `outer` (within `slack` pixels)."""
    return (
        inner.x0 >= outer.x0 - slack and inner.x1 <= outer.x1 + slack
        and inner.y0 >= outer.y0 - slack and inner.y1 <= outer.y1 + slack
    )  # fmt: skip


def _covers(box: Bbox, points: np.ndarray) -> int:
    """How many data points lie inside `box` (one pixel in from its edges)."""
    return int(_inside(box, points, margin=1).sum())


def tick_labels(ticks) -> list[Text]:
    """The tick labels an axis draws: visible, non-empty, at a location within its view."""
    low, high = sorted(ticks.get_view_interval())
    return [
        label
        for location, label in zip(ticks.get_ticklocs(), ticks.get_ticklabels(), strict=False)
        if low <= location <= high and label.get_visible() and label.get_text().strip()
    ]


def drawn_texts(fig) -> list[Text]:
    """Every text the figure draws: its titles, legends, and each panel's title, axis
    labels, tick labels and annotations."""
    texts = [fig._suptitle, *fig.texts] if fig._suptitle else list(fig.texts)
    for legend in [*fig.legends, *(axis.get_legend() for axis in fig.axes)]:
        if legend is not None:
            texts += [legend.get_title(), *legend.get_texts()]
    for axis in fig.axes:
        if axis.get_visible() and axis.axison:
            texts += [axis.title, axis._left_title, axis._right_title, axis.xaxis.label,
                      axis.yaxis.label, *axis.texts]  # fmt: skip
            texts += tick_labels(axis.xaxis) + tick_labels(axis.yaxis)
    unique = dict.fromkeys(texts)  # the suptitle may be among fig.texts too
    return [text for text in unique if text.get_visible() and text.get_text().strip()]


def overlapping_texts(fig, renderer) -> list[str]:
    """Every pair of drawn texts whose boxes overlap by more than a pixel each way."""
    texts = drawn_texts(fig)
    boxes = np.array([text.get_window_extent(renderer).extents for text in texts])
    if len(boxes) < 2:
        return []
    x0, y0, x1, y1 = (boxes[:, i] for i in range(4))
    overlap = (
        (np.minimum(x1[:, None], x1[None]) - np.maximum(x0[:, None], x0[None]) > 1)
        & (np.minimum(y1[:, None], y1[None]) - np.maximum(y0[:, None], y0[None]) > 1)
    )  # fmt: skip
    first, second = np.nonzero(np.triu(overlap, k=1))
    return [
        f"texts {texts[a].get_text()[:30]!r} and {texts[b].get_text()[:30]!r} overlap"
        for a, b in zip(first, second, strict=True)
    ]


def lab(colour) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour as it shows on white paper (its alpha blended with
    white; IEC 61966-2-1 and CIE 15)."""
    *rgb, alpha = to_rgba(colour)
    shown = [alpha * c + (1 - alpha) for c in rgb]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in shown]
    matrix = ((0.4124564, 0.3575761, 0.1804375), (0.2126729, 0.7151522, 0.0721750),
              (0.0193339, 0.1191920, 0.9503041))  # fmt: skip
    white = (0.95047, 1.0, 1.08883)
    x, y, z = (sum(m * c for m, c in zip(row, linear, strict=True)) / w
               for row, w in zip(matrix, white, strict=True))  # fmt: skip

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(first, second) -> float:
    """The CIEDE2000 colour difference of two CIELAB colours (Sharma, Wu and Dalal, 2005)."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    mean_c = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(mean_c**7 / (mean_c**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    turn = h2 - h1
    if c1 * c2 == 0:
        turn = 0.0
    elif turn > 180:
        turn -= 360
    elif turn < -180:
        turn += 360
    delta_h = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(turn) / 2)
    mean_l, mean_c = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        mean_h = h1 + h2
    elif abs(h1 - h2) <= 180:
        mean_h = (h1 + h2) / 2
    else:
        mean_h = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(mean_h - 30)) + 0.24 * math.cos(math.radians(2 * mean_h))
         + 0.32 * math.cos(math.radians(3 * mean_h + 6))
         - 0.20 * math.cos(math.radians(4 * mean_h - 63)))  # fmt: skip
    rotation = 30 * math.exp(-(((mean_h - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(mean_c**7 / (mean_c**7 + 25**7))
    s_l = 1 + 0.015 * (mean_l - 50) ** 2 / math.sqrt(20 + (mean_l - 50) ** 2)
    s_c, s_h = 1 + 0.045 * mean_c, 1 + 0.015 * mean_c * t
    r_t = -math.sin(math.radians(2 * rotation)) * r_c
    dl, dc, dh = (l2 - l1) / s_l, (c2 - c1) / s_c, delta_h / s_h
    return math.sqrt(dl**2 + dc**2 + dh**2 + r_t * dc * dh)


def _entry_look(handle) -> tuple[object, str] | None:
    """A legend handle's colour and what else tells it apart: a line's marker, dashes and
    fill, a box's hatch; None if it shows neither (a guide, an invisible handle)."""
    if isinstance(handle, Line2D):
        drawn = f"{handle.get_marker()} {handle.get_linestyle()} {handle.get_fillstyle()}"
        return to_rgba(handle.get_color(), handle.get_alpha()), drawn
    if hasattr(handle, "get_facecolor"):
        return handle.get_facecolor(), f"patch {handle.get_hatch()}"
    return None


def confused_entries(legend) -> list[str]:
    """Pairs of one legend's entries whose colours are within TOLD_APART of each other and
    that nothing else tells apart (the same marker, dashes and fill, or boxes of one hatch),
    other than entries that name one series ('ring = binomial tree' and 'ring')."""
    looks = [
        (text.get_text(), look)
        for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=False)
        if (look := _entry_look(handle)) is not None
    ]
    found = []
    for index, (name, (colour, mark)) in enumerate(looks):
        for other, (other_colour, other_mark) in looks[index + 1 :]:
            if set(name.split(" = ")) & set(other.split(" = ")):
                continue  # one series named in both ('ring = binomial tree', 'ring')
            if mark == other_mark and ciede2000(lab(colour), lab(other_colour)) < TOLD_APART:
                found.append(f"legend entries {name!r} and {other!r}: close colours, drawn alike")
    return found


def _look(line: Line2D) -> tuple[str, str, bool]:
    """What shows of a line where another lies on it: its marker, its dashes, and whether
    its markers are hollow (one over a filled one shows both)."""
    return str(line.get_marker()), str(line.get_linestyle()), line.get_markerfacecolor() == "none"


def hidden_series(axis) -> list[str]:
    """Labelled lines of one panel that lie exactly on another labelled line drawn alike
    (the same marker, dashes and fill: only the top one shows), where neither label says
    it equals the other ('a = b')."""
    lines = [
        line for line in axis.get_lines()
        if line.get_visible() and line.get_gid() != GUIDE
        and not line.get_label().startswith("_") and len(line.get_xydata())
    ]  # fmt: skip
    found = []
    for index, line in enumerate(lines):
        for other in lines[index + 1 :]:
            same = line.get_xydata().shape == other.get_xydata().shape and np.allclose(
                line.get_xydata(), other.get_xydata(), equal_nan=True
            )
            alike = _look(line) == _look(other)
            if same and alike and "=" not in line.get_label() + other.get_label():
                found.append(
                    f"series {other.get_label()!r} lies under {line.get_label()!r} "
                    f"in panel {axis.get_title()!r}"
                )
    return found


def problems(plot: Plot) -> list[str]:
    """Everything that makes the figure unreadable in print, one line each."""
    fig = plot.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    width = max(fig.get_size_inches()[0], fig.get_tightbbox(renderer).width)  # as saved
    if width > PAGE_WIDTH + 1e-6:
        found.append(f"{width:.2f} in wide, wider than a page ({PAGE_WIDTH} in)")
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text().strip() and text.get_fontsize() < SMALLEST_FONT:
            found.append(f"{text.get_fontsize():g} pt text: {text.get_text()[:40]!r}")
    found += overlapping_texts(fig, renderer)
    axes = [axis for axis in fig.axes if axis.get_visible() and axis.axison]
    for axis in axes:
        if not axis.has_data():
            continue
        for name, ticks in (("x", axis.xaxis), ("y", axis.yaxis)):
            if not tick_labels(ticks) and ticks.get_visible():
                found.append(f"panel {axis.get_title()!r}: no {name} tick labels")
    legends = [legend for legend in fig.legends]
    legends += [axis.get_legend() for axis in axes if axis.get_legend() is not None]
    for legend in legends:
        found += confused_entries(legend)
    for axis in axes:
        found += hidden_series(axis)
        points = data_points(axis)
        meshes = [c for c in axis.collections if isinstance(c, QuadMesh)]
        for legend in legends:
            box = legend.get_window_extent(renderer)
            if _covers(box, points):
                found.append(f"a legend covers data in panel {axis.get_title()!r}")
            if meshes and box.overlaps(axis.get_window_extent()):
                found.append(f"a legend covers the map in panel {axis.get_title()!r}")
        for text in axis.texts:
            if text.get_gid() == GUIDE or not text.get_visible() or not text.get_text().strip():
                continue
            box = text.get_window_extent(renderer)
            patch = text.get_bbox_patch()
            if patch is not None:
                box = patch.get_window_extent(renderer)
            if _covers(box, points):
                found.append(f"text {text.get_text()[:30]!r} covers data in {axis.get_title()!r}")
            if not _within(box, axis.get_window_extent(renderer)):
                found.append(f"text {text.get_text()[:30]!r} lies outside {axis.get_title()!r}")
    return found


def assert_readable(plot: Plot) -> None:
    """Fail with every problem found (see problems)."""
    found = problems(plot)
    assert not found, "\n".join(found)


# A term a reader must look up: a ladder rung or a symbol ('+resources', '|err|'), a Greek
# letter of the cost model, or an acronym ('LL128', 'NVLS'); names and numbers are not terms.
TERM = re.compile(r"^(?:[+|].*|.*[|αβγ].*|[A-Z]{2,}[0-9]*)$")
TERM_EDGES = ",;:()[]{}'\"."


def terms(plot: Plot) -> set[str]:
    """The terms of the figure's titles and axis labels (TERM)."""
    fig = plot.figure
    texts = [fig._suptitle] if fig._suptitle is not None else []
    for axis in fig.axes:
        texts += [axis.title, axis._left_title, axis._right_title, axis.xaxis.label,
                  axis.yaxis.label]  # fmt: skip
    words = {w.strip(TERM_EDGES) for text in texts for w in text.get_text().split()}
    return {w for w in words if w and not w[0].isdigit() and TERM.match(w)}


def undefined_terms(plot: Plot, defined: str) -> list[str]:
    """The figure's terms that `defined` (its caption and the glossary) never writes."""
    return [f"term {term!r} is defined neither in the caption nor in the glossary"
            for term in sorted(terms(plot)) if term not in defined]  # fmt: skip
