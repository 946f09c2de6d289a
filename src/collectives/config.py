"""The pipeline's config, checked for meaning after the JSON schema has checked its shape.

Every problem is reported as a ConfigError naming the config key, before any job runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import algorithms
from .fabrics import FabricError, kind_of, read_measurements
from .grid import expand_axis
from .measure import DATA_KINDS, DTYPES, MAX_RANKS

FABRIC_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class ConfigError(ValueError):
    """The config is unusable; the message starts with the offending key."""


@dataclass(frozen=True)
class Plan:
    """What the config asks for, expanded: the grid, the fabrics and the figure choices."""

    algorithms: list[str]
    ranks: list[int]
    elements: list[int]
    dtypes: list[str]
    fabrics: dict[str, str]  # name -> kind: given, measured or pingpong
    figures: dict[str, Any]


def check(config: dict[str, Any], basedir: Path) -> Plan:
    """Validate `config` (paths relative to `basedir`) and expand it into a Plan."""
    names = config.get("algorithms", [])
    for index, name in enumerate(names):
        if name not in algorithms.ALGORITHMS:
            valid = ", ".join(algorithms.ALGORITHMS)
            raise ConfigError(f"algorithms[{index}]: unknown algorithm {name!r}; valid: {valid}")
    ranks = _axis(config, "ranks", 1, MAX_RANKS)
    elements = _axis(config, "elements", 1, None)
    for index, dtype in enumerate(config.get("dtypes", [])):
        if dtype not in DTYPES:
            raise ConfigError(
                f"dtypes[{index}]: unknown dtype {dtype!r}; valid: {', '.join(DTYPES)}"
            )
    if config.get("data", "int") not in DATA_KINDS:
        raise ConfigError(f"data: must be one of {', '.join(DATA_KINDS)}")
    fabrics = {name: _fabric(name, entry, basedir) for name, entry in config["fabrics"].items()}
    figures = dict(config.get("figures", {}))
    _figure_choice(figures, "crossover_ranks", ranks, "ranks")
    _figure_choice(figures, "counts_elements", elements, "elements")
    hotspot = figures.get("hotspot", {})
    _figure_choice(hotspot, "ranks", ranks, "ranks", "figures.hotspot")
    _figure_choice(hotspot, "elements", elements, "elements", "figures.hotspot")
    _figure_choice(figures, "dtype", config["dtypes"], "dtypes")
    return Plan(list(names), ranks, elements, list(config["dtypes"]), fabrics, figures)


def _axis(config: dict[str, Any], key: str, low: int, high: int | None) -> list[int]:
    try:
        values = expand_axis(config[key])
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{key}: {exc}") from None
    if not values:
        raise ConfigError(f"{key}: the axis is empty")
    for value in values:
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high else f"at least {low}"
            raise ConfigError(f"{key}: every value must be {bound}, got {value}")
    return values


def _fabric(name: str, entry: dict[str, Any], basedir: Path) -> str:
    key = f"fabrics.{name}"
    if not FABRIC_NAME.match(name):
        raise ConfigError(f"{key}: names may use letters, digits, '_', '.', '-'")
    try:
        kind = kind_of(entry)
        if kind == "measured":
            path = basedir / entry["measurements"]
            read_measurements(path, entry.get("format"), entry.get("table", 1))
        if kind == "pingpong":
            expand_axis(entry["pingpong"]["sizes"])
    except (FabricError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{key}: {exc}") from None
    return kind


def _figure_choice(
    section: dict[str, Any], key: str, allowed: list, axis: str, prefix: str = "figures"
) -> None:
    if key in section and section[key] not in allowed:
        raise ConfigError(f"{prefix}.{key}: {section[key]} is not on the {axis} axis {allowed}")
