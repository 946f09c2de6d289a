"""The collective libraries whose own cost models price a GPU system: one registry.

Each library is one TOML file of releases/ (its name, the vendor whose GPUs it runs on, the
number its tables read for each GPU generation, and one table per modelled release) and one
module that reads a release's table and prices the all-reduce from it, with the same
functions: `parse_release`, `tuning`, `algorithm_time`, `step_latency`, `bus_bandwidth`
(collectives.model.nccl for NVIDIA's NCCL, collectives.model.rccl for AMD's RCCL). `choice`
prices any release with its library's. A new library is a file and a module named in
MODELS; a new release, a table.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from . import nccl, rccl

MODELS: dict[str, ModuleType] = {"nccl": nccl, "rccl": rccl}  # library -> its cost model
RELEASES_DIR = Path(__file__).with_name("releases")  # one TOML file per library


@dataclass(frozen=True)
class Library:
    """A collective library's modelled releases, the vendor whose GPUs it runs on, and the
    number its tables read for each GPU generation (ISA target): NCCL's compute capability,
    RCCL's gfx number (gfx90a is 910)."""

    name: str
    vendor: str
    generations: dict[str, int]
    releases: dict[str, Any]  # version -> the library's Release

    def nearest(self, version: str) -> Any:
        """The release modelled for `version`: itself, else the newest modelled one before
        it (tables carry forward until a release changes them), else the oldest."""
        if version in self.releases:
            return self.releases[version]
        ordered = sorted(self.releases.values(), key=lambda r: version_key(r.version))
        older = [r for r in ordered if version_key(r.version) < version_key(version)]
        return (older or ordered)[-1 if older else 0]

    def first_for(self, capability: int) -> Any:
        """The oldest modelled release with a row for the GPU's generation (the newest row
        start any release has at or below its number): a system that names no release is
        priced with it."""
        starts = [r for release in self.releases.values() for r in release.capability_rows]
        row = max(start for start in starts if start <= capability)
        ordered = sorted(self.releases.values(), key=lambda r: version_key(r.version))
        return next(release for release in ordered if row in release.capability_rows)


def version_key(version: str) -> tuple[int, ...]:
    """A release's version as numbers, for ordering ('2.20.3' -> (2, 20, 3))."""
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        raise ValueError(f"{version!r} is not a release number like 2.20.3") from None


def cost_model(release: Any) -> ModuleType:
    """The module that prices a release of its library."""
    return MODELS[release.library]


def load_library(path: Path) -> Library:
    """One library's releases from its TOML file, each read by its library's module;
    ValueError for a library no module models."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    name = data["library"]
    if name not in MODELS:
        raise ValueError(f"{path.name}: no cost model of {name!r} (modelled: {', '.join(MODELS)})")
    parse = MODELS[name].parse_release
    releases = {v: parse(name, v, table) for v, table in data["releases"].items()}
    return Library(name, data["vendor"], dict(data["generations"]), releases)


@cache
def libraries(directory: Path = RELEASES_DIR) -> dict[str, Library]:
    """Every modelled library by name, from the TOML files of `directory`."""
    found = (load_library(path) for path in sorted(directory.glob("*.toml")))
    return {library.name: library for library in found}


def choice(system: nccl.System, release: Any, sizes: list[int]) -> list[tuple[str, str, float]]:
    """For each size in bytes: the algorithm and protocol the release's library runs (the
    cheapest by its own tables), and its seconds on the system (its network's latency per
    step and the per-call floor included)."""
    model = cost_model(release)
    seen = nccl.seen_by_nccl(system)
    picked, priced = model.tuning(seen, release), model.tuning(system, release)
    chosen = []
    for nbytes in sizes:
        times = {key: model.algorithm_time(seen, release, picked, *key, nbytes) for key in picked}
        algorithm, protocol = min(times, key=times.__getitem__)
        seconds = model.algorithm_time(system, release, priced, algorithm, protocol, nbytes)
        chosen.append((algorithm, protocol, seconds + system.call_floor_us * 1e-6))
    return chosen
