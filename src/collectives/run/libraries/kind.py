"""What one MPI library is to this project: its files and launcher settings, its names for
our algorithms, the variables that steer its MPI_Allreduce, and the selection file it
loads. Each library is one module beside this one, holding one Kind."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import registry


class LibraryError(RuntimeError):
    """A library that cannot be installed, found or started, or lacks an algorithm."""


# A selection by communicator size: (N, [(min_bytes, max_bytes or None, algorithm), ...]),
# in order of N and of size; each N's rule holds from that N up to the next. An algorithm
# of DEFAULT leaves its range to the library's own choice, in the way each library's file
# can say so.
Ranges = list[tuple[int, list[tuple[int, int | None, str]]]]
DEFAULT = "default"
# The selection trees built into an installed library, by the layer that reads each
# (MPICH: "mpir", "ch4"); an export keeps them for everything it does not tune.
Trees = dict[str, dict[str, Any]]
Exporter = Callable[[Ranges, Trees | None], str]  # a selection -> one file's text


@dataclass(frozen=True)
class Switch:
    """The MPI_T control variable that changes a library's all-reduce algorithm after
    MPI_Init (libraries.switch)."""

    variable: str
    own: str  # its value for the library's own choice (DEFAULT)
    per_call: bool  # read at every call (else when a communicator is set up)
    # further variables written with it: (name, value for a named algorithm, for DEFAULT)
    with_it: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class Kind:
    """One MPI library's facts and steering."""

    name: str  # the config key and the `library=` wildcard: mpich, openmpi, impi
    title: str  # as people write it
    libmpi: str  # under the prefix
    launch_environment: tuple[tuple[str, str], ...]  # always set for its jobs
    selection_suffix: str  # the file its selection is exported to, the one `load` names
    algorithms: Mapping[str, str]  # our algorithm -> the library's name or number for it
    force: Callable[[str], dict[str, str]]  # its id -> the variables forcing it at any size
    load: Callable[[str, int], dict[str, str]]  # selection file, ranks -> the variables
    export: Exporter  # a selection -> the loaded file's text
    style: tuple[str, Any] = ("black", "--")  # its MPI_Allreduce's line: grey shade, dashes
    bundled: bool = False  # the pipeline's own environment has it (the pipeline extra)
    scratch_variable: str | None = None  # names a run's own directory for its segments
    # algorithms a probe with a user-defined sum cannot see it run (it takes another branch)
    unobservable: frozenset[str] = field(default_factory=frozenset)
    # the variables under which a selection file's DEFAULT range runs: the library's own
    # choice at the layer its file steers (forcing DEFAULT times exactly that)
    own_choice: Mapping[str, str] = field(default_factory=dict)
    # whether its file can leave one size range to its own choice (else only a whole N)
    default_ranges: bool = True
    # how a running program changes its algorithm (None: only at launch, by `force`)
    switch: Switch | None = None
    # further files of a selection, beside the loaded one (suffix -> exporter): what its
    # variables also name
    companions: Mapping[str, Exporter] = field(default_factory=dict)
    # its published all-reduce decision, as a rule of collectives.model.library_rules
    # (RULES), which the study sets beside the model's selection; None where none is known
    decision: str | None = None

    def exports(self, ranges: Ranges, trees: Trees | None) -> dict[str, str]:
        """A selection's files' texts, by suffix, the loaded one's first."""
        texts = {self.selection_suffix: self.export(ranges, trees)}
        return texts | {suffix: write(ranges, trees) for suffix, write in self.companions.items()}

    def algorithm_id(self, algorithm: str) -> str | None:
        """The library's own name (or number) for one of our algorithms (a variant such as
        hierarchical-G8 names its algorithm); None if it has none."""
        return self.algorithms.get(registry.parse_variant(algorithm)[0])

    def forcing(self, algorithm: str) -> dict[str, str]:
        """The variables that make MPI_Allreduce run `algorithm` at every size (DEFAULT:
        the library's own choice, as a selection file's default range runs it)."""
        if algorithm == DEFAULT:
            return dict(self.own_choice)
        name = self.algorithm_id(algorithm)
        if name is None:
            raise LibraryError(f"{self.title} has no {algorithm} all-reduce")
        return self.force(name)

    def selection_files(self, selection: Path | str) -> list[Path]:
        """An exported selection's files: the one loaded, then its companions beside it
        (the same name with each companion's suffix)."""
        path = Path(selection)
        stem = path.name.removesuffix(f".{self.selection_suffix}")
        return [path, *(path.with_name(f"{stem}.{suffix}") for suffix in self.companions)]

    def loading(self, selection: Path, ranks: int) -> dict[str, str]:
        """The variables that make MPI_Allreduce on `ranks` ranks follow an exported
        selection file; LibraryError names a companion file that is not beside it."""
        selection = Path(selection).resolve()  # the companions sit beside the file itself
        for companion in self.selection_files(selection)[1:]:
            if not companion.is_file():
                raise LibraryError(
                    f"{self.title}'s selection {selection} needs {companion.name} beside it"
                )
        return self.load(str(selection), ranks)
