"""Scratch copies of the workflow, shared by the end-to-end tests (local and cluster)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
PNG = b"\x89PNG\r\n\x1a\n"


def copy_workflow(target: Path, items: tuple[str, ...] = ("Snakefile", "workflow", "config",
                                                          ".test")) -> Path:  # fmt: skip
    """The workflow's files (and results/ nowhere) copied into `target`."""
    for item in items:
        source = REPO / item
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target / item)
    return target
