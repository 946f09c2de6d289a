"""A figure as it is printed: readable, and saved as PNG, a PDF with embedded fonts and
the CSV of what it plots."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from collectives.study.figures.style import Plot, save
from tests.study.figures.readable import assert_readable


def assert_printed(plot: Plot, folder: Path) -> pd.DataFrame:
    """Check the figure reads in print, save it, and return the CSV it wrote (which must
    hold the plotted rows); the PDF must embed TrueType fonts, never Type 3."""
    assert_readable(plot)
    plotted = plot.data.copy()
    paths = [folder / f"figure.{suffix}" for suffix in ("png", "pdf", "csv")]
    save(plot, *paths)
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pdf = paths[1].read_bytes()
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf
    written = pd.read_csv(paths[2])
    assert len(written) == len(plotted) and list(written.columns) == list(plotted.columns)
    return written
