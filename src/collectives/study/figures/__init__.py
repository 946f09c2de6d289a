"""The study's figures, drawn from the pipeline's tables: one module per figure, each
with a draw() that returns the figure and the data it plots (style.Plot). The pipeline
draws each through draw_figure, from its row of the table of figures
(workflow/rules/figures.smk): the module, its inputs and how each is read, its parameters.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def read_input(kind: str, files: Sequence[str]) -> Any:
    """One input of a figure, as its draw() takes it: a table (one CSV), fabrics (their
    JSON files), run records (checked, as every reader of records checks them)."""
    if kind == "table":
        import pandas as pd

        (path,) = files
        return pd.read_csv(path)
    if kind == "fabrics":
        return [json.loads(Path(path).read_text()) for path in files]
    if kind == "records":
        from ..aggregate import load_records

        return load_records(files)
    raise ValueError(f"unknown kind of figure input {kind!r}; valid: table, fabrics, records")


def draw_figure(
    module: str,
    inputs: Mapping[str, Sequence[str]],
    kinds: Mapping[str, str],
    parameters: Mapping[str, Any],
) -> Any:
    """The Plot of figure module `module` (collectives.study.figures.<module>): draw() with
    each input read as `kinds` says (inputs without a kind only order the job) and the
    parameters."""
    figure = importlib.import_module(f"{__name__}.{module}")
    arguments = {name: read_input(kinds[name], files) for name, files in inputs.items()
                 if name in kinds}  # fmt: skip
    return figure.draw(**arguments, **parameters)
