"""Changing a library's all-reduce algorithm inside one launch, through MPI_T.

MPI's tool interface (MPI 3.1 §14.3) lets a running program write a library's control
variables. MPICH reads MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM (and whether its device layer may
take the call) at every MPI_Allreduce, so a write takes effect at the next call; Open MPI's
coll/tuned reads
coll_tuned_allreduce_algorithm when it sets up a communicator, so each algorithm gets a
communicator duplicated after its write. A Switcher holds one communicator per algorithm
and selects among them, so one launch times every algorithm in turns. The bindings are
ctypes calls into the libmpi mpi4py loaded: mpi4py has no MPI_T.
"""

from __future__ import annotations

import ctypes
import os
import re
from collections.abc import Sequence

from . import KINDS, LIBRARY_VARIABLE
from .kind import DEFAULT, Kind, LibraryError

MPI_THREAD_SINGLE = 0
NAME_LENGTH = 256
DESCRIPTION_LENGTH = 8192


def running_kind() -> Kind:
    """The library this job was launched under; LibraryError if none or it cannot switch."""
    name = os.environ.get(LIBRARY_VARIABLE)
    if name not in KINDS:
        raise LibraryError(
            "switching algorithms needs a run under `collectives mpiexec` (no MPI library named)"
        )
    kind = KINDS[name]
    if kind.switch is None:
        raise LibraryError(f"{kind.title} cannot change its all-reduce algorithm at run time")
    return kind


def switch_values(kind: Kind, algorithms: Sequence[str]) -> list[dict[str, str]]:
    """The control variables' values of each algorithm (DEFAULT: the library's own choice),
    the switch's own variable first; LibraryError for one the library lacks."""
    switch, values = kind.switch, []
    for algorithm in algorithms:
        own = algorithm == DEFAULT
        value = switch.own if own else kind.algorithm_id(algorithm)
        if value is None:
            raise LibraryError(f"{kind.title} has no {algorithm} all-reduce")
        values.append({switch.variable: value} | {
            name: by_default if own else by_name for name, by_name, by_default in switch.with_it
        })  # fmt: skip
    return values


class Switcher:
    """One communicator per algorithm, each running it: `select(name)` before a call."""

    def __init__(self, algorithms: Sequence[str], world) -> None:
        kind = running_kind()
        values = switch_values(kind, algorithms)
        self._tools = {name: _ToolInterface(name) for name in values[0]}
        self._per_call = kind.switch.per_call
        self._values = dict(zip(algorithms, values, strict=True))
        self.communicators = {}
        for algorithm in algorithms:
            if self._per_call:
                self.communicators[algorithm] = world
            else:  # read when the communicator is set up: one set up after each write
                self._write(algorithm)
                self.communicators[algorithm] = world.Dup()

    def select(self, algorithm: str):
        """The communicator on which MPI_Allreduce runs `algorithm` from now on."""
        if self._per_call:
            self._write(algorithm)
        return self.communicators[algorithm]

    def close(self) -> None:
        """Free the duplicated communicators and the tool interface."""
        if not self._per_call:
            for communicator in self.communicators.values():
                communicator.Free()
        for tool in self._tools.values():
            tool.close()

    def _write(self, algorithm: str) -> None:
        for name, value in self._values[algorithm].items():
            self._tools[name].write(value)


class _ToolInterface:
    """One integer control variable of the loaded libmpi, written through MPI_T. A value
    is an integer or a name: the variable's MPI_T enumeration item of that name or, for a
    variable without one (MPICH's), the position of the line `name - ...` in its
    description, which lists the values in the order of their numbers."""

    def __init__(self, variable: str) -> None:
        # the libmpi mpi4py loaded: a Library's jobs name it (running_kind needs one)
        self._mpi = ctypes.CDLL(os.environ["MPI4PY_LIBMPI"], mode=ctypes.RTLD_GLOBAL)
        provided = ctypes.c_int()
        self._check(self._mpi.MPI_T_init_thread(MPI_THREAD_SINGLE, ctypes.byref(provided)),
                    "MPI_T_init_thread")  # fmt: skip
        self.variable = variable
        index = ctypes.c_int()
        self._check(
            self._mpi.MPI_T_cvar_get_index(variable.encode(), ctypes.byref(index)),
            f"no control variable {variable}",
        )
        self._names = self._value_names(index)
        self._handle = ctypes.c_void_p()
        count = ctypes.c_int()
        self._check(
            self._mpi.MPI_T_cvar_handle_alloc(index, None, ctypes.byref(self._handle),
                                              ctypes.byref(count)),
            f"MPI_T_cvar_handle_alloc({variable})",
        )  # fmt: skip

    def write(self, value: str) -> None:
        """Set the variable to `value` (an integer, or one of its value names)."""
        number = int(value) if value.lstrip("-").isdigit() else self._names.get(value)
        if number is None:
            raise LibraryError(f"{self.variable} has no value {value!r}")
        self._check(self._mpi.MPI_T_cvar_write(self._handle, ctypes.byref(ctypes.c_int(number))),
                    f"writing {self.variable}={value}")  # fmt: skip

    def close(self) -> None:
        self._mpi.MPI_T_cvar_handle_free(ctypes.byref(self._handle))
        self._mpi.MPI_T_finalize()

    def _value_names(self, index: ctypes.c_int) -> dict[str, int]:
        """The variable's value names and numbers: its enumeration's, else its
        description's."""
        name = ctypes.create_string_buffer(NAME_LENGTH)
        description = ctypes.create_string_buffer(DESCRIPTION_LENGTH)
        name_length = ctypes.c_int(NAME_LENGTH)
        description_length = ctypes.c_int(DESCRIPTION_LENGTH)
        verbosity, bind, scope = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        datatype = ctypes.c_void_p()  # an int in MPICH, a pointer in Open MPI: room for both
        enumeration = ctypes.c_void_p()
        self._check(
            self._mpi.MPI_T_cvar_get_info(
                index, name, ctypes.byref(name_length), ctypes.byref(verbosity),
                ctypes.byref(datatype), ctypes.byref(enumeration), description,
                ctypes.byref(description_length), ctypes.byref(bind), ctypes.byref(scope),
            ),
            f"MPI_T_cvar_get_info({self.variable})",
        )  # fmt: skip
        if enumeration.value:
            return self._enumeration(enumeration)
        lines = description.value.decode(errors="replace").splitlines()
        listed = [m.group(1) for line in lines if (m := re.match(r"\s*(\w+)\s+-\s", line))]
        return {value: number for number, value in enumerate(listed)}

    def _enumeration(self, enumeration: ctypes.c_void_p) -> dict[str, int]:
        items, title = ctypes.c_int(), ctypes.create_string_buffer(NAME_LENGTH)
        length = ctypes.c_int(NAME_LENGTH)
        found = self._mpi.MPI_T_enum_get_info(
            enumeration, ctypes.byref(items), title, ctypes.byref(length)
        )
        self._check(found, "MPI_T_enum_get_info")
        names = {}
        for item in range(items.value):
            value, name = ctypes.c_int(), ctypes.create_string_buffer(NAME_LENGTH)
            length = ctypes.c_int(NAME_LENGTH)
            found = self._mpi.MPI_T_enum_get_item(
                enumeration, item, ctypes.byref(value), name, ctypes.byref(length)
            )
            self._check(found, "MPI_T_enum_get_item")
            names[name.value.decode()] = value.value
        return names

    @staticmethod
    def _check(code: int, what: str) -> None:
        if code != 0:
            raise LibraryError(f"MPI_T: {what} (error {code})")
