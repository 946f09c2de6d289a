"""What every figure must satisfy to be printed: drawn at most a page wide, no text below
7 pt at that width, tick labels on every axis that shows data, no two texts on top of each
other, and no legend or annotation on top of the data (measured in display coordinates
after drawing)."""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from collectives.study.figures.style import GUIDE, PAGE_WIDTH, SMALLEST_FONT, Plot

SAMPLES_PER_SEGMENT = 16  # points sampled along each drawn line segment


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
    for axis in axes:
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
    return found


def assert_readable(plot: Plot) -> None:
    """Fail with every problem found (see problems)."""
    found = problems(plot)
    assert not found, "\n".join(found)
