"""The extras install what their commands need, and no more: the report's renderer with the
pipeline, no torch (several GB from PyPI on Linux) with the tests unless asked for."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXTRAS = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def installed_by(extra: str) -> set[str]:
    """The package names an extra installs directly, through the extras it names."""
    names = set()
    for requirement in EXTRAS[extra]:
        name, _, rest = re.match(r"([A-Za-z0-9_.-]+)(\[([^]]*)\])?", requirement).groups()
        if name == "collectives":
            for inner in rest.split(","):
                names |= installed_by(inner.strip())
        else:
            names.add(name.lower())
    return names


def test_the_pipeline_extra_builds_the_report():
    # snakemake --report imports pygments, which snakemake itself does not require
    assert "pygments" in installed_by("pipeline")


def test_torch_comes_only_with_the_gloo_extra():
    assert "torch" in installed_by("gloo")
    assert {"torch", "torchvision"}.isdisjoint(installed_by("test") | installed_by("pipeline"))
    assert {"pytest", "snakemake", "mpi4py"} <= installed_by("test")
