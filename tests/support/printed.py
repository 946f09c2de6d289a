"""A figure as it is printed: readable, and saved as a PDF with embedded fonts beside the
CSV of what it plots (the pipeline test checks the PNGs)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from collectives.study.figures.style import Plot, save
from tests.support.readable import assert_readable, undefined_terms

REPO = Path(__file__).resolve().parents[2]

PDF_PANELS = 6


def defined_terms(figure: str) -> str:
    """What a reader of `figure` can look up: its report caption and the glossary."""
    caption = (REPO / "workflow/report" / f"{figure}.rst").read_text().replace("\\", "")
    return caption + (REPO / "docs/glossary.md").read_text()


def assert_printed(plot: Plot, folder: Path, figure: str | None = None) -> pd.DataFrame:
    """Check the figure reads in print (and, named, that its caption or the glossary
    defines every term of its titles and labels), save it, and return the CSV it wrote
    (which must hold the plotted rows); the PDF must embed TrueType fonts, never Type 3."""
    assert_readable(plot)
    if figure is not None:
        undefined = undefined_terms(plot, defined_terms(figure))
        assert not undefined, "\n".join(undefined)
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
