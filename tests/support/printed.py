"""A figure as it is printed: readable, and saved as a PDF with embedded fonts beside the
CSV of what it plots (the pipeline test checks the PNGs)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from collectives.study.figures.style import Plot, save
from tests.support.readable import assert_readable

PDF_PANELS = 6


def assert_printed(plot: Plot, folder: Path) -> pd.DataFrame:
    """Check the figure reads in print, save it, and return the CSV it wrote (which must
    hold the plotted rows); the PDF must embed TrueType fonts, never Type 3."""
    assert_readable(plot)
    plotted = plot.data.copy()
    pdf, csv = folder / "figure.pdf", folder / "figure.csv"
    panels = sum(axis.get_visible() for axis in plot.figure.axes)
    # Fonts embed alike whatever the panel count: the PDF (two more renders) is checked on
    # the figures of up to PDF_PANELS panels, so an 18-fabric render stays a few seconds.
    save(plot, *([pdf] if panels <= PDF_PANELS else []), csv)
    if panels <= PDF_PANELS:
        assert b"/FontFile2" in pdf.read_bytes() and b"/Type3" not in pdf.read_bytes()
    written = pd.read_csv(csv)
    assert len(written) == len(plotted) and list(written.columns) == list(plotted.columns)
    return written
