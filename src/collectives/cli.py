"""The `collectives` command: measure one run, list algorithms, ping-pong the transport."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from . import algorithms
from .measure import (
    DATA_KINDS,
    DEFAULT_TIMEOUT,
    DTYPES,
    MeasurementError,
    UsageError,
    measure_with_trace,
)
from .records import write_json, write_text
from .transport import FAULT_KINDS, RankFailure

EXIT_FAILED, EXIT_USAGE = 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, but bad input is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="collectives", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser(
        "measure",
        help="run one all-reduce on real processes and write its JSON record",
        description="Run one all-reduce with each rank an OS process; count every byte and "
        "round, verify every sum against numpy, compare with theory, and write the record.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="fault kinds (a testing aid):\n"
        + "\n".join(f"  {kind:8} {what}" for kind, what in FAULT_KINDS.items()),
    )
    run.add_argument(
        "--algorithm", required=True, help=f"one of: {', '.join(algorithms.ALGORITHMS)}"
    )
    run.add_argument("--ranks", type=int, required=True, help="number of ranks N (1..1024)")
    run.add_argument("--elements", type=int, required=True, help="vector length M (>= 1)")
    run.add_argument(
        "--ranks-per-node",
        type=int,
        help="ranks per node G, for the hierarchical algorithm (G must divide N)",
    )
    run.add_argument("--dtype", default="float64", help=f"one of: {', '.join(DTYPES)}")
    run.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    run.add_argument("--data", default="int", help=f"input values: {' or '.join(DATA_KINDS)}")
    run.add_argument(
        "--timeout",
        type=_duration,
        default=DEFAULT_TIMEOUT,
        help="seconds, or a duration such as 90s, 10m, 1h (default 300)",
    )
    run.add_argument("--output", help="write the record here (atomically) instead of stdout")
    run.add_argument(
        "--trace",
        help="write the message trace (.npz) here; default: next to --output, as NAME.trace.npz",
    )
    run.add_argument("--inject-fault", metavar="KIND:RANK", help="make one rank fail (testing aid)")

    commands.add_parser("algorithms", help="list the registered algorithms")

    ping = commands.add_parser(
        "pingpong",
        help="measure one-way times over this transport (the local fabric)",
        description="osu_latency-style ping-pong between two ranks of the queue transport; "
        "writes a CSV (bytes, seconds) that the pipeline fits like any measured fabric.",
    )
    ping.add_argument("--sizes", required=True, help="comma-separated message sizes in bytes")
    ping.add_argument("--iterations", type=int, default=200, help="round trips per size")
    ping.add_argument("--warmup", type=int, default=10, help="untimed round trips per size")
    ping.add_argument("--output", required=True, help="CSV file to write (atomically)")
    return parser


def _duration(text: str) -> float:
    """'300', '300s', '5m' or '1h' as seconds (argparse type)."""
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:])
    try:
        return float(text[:-1]) * scale if scale else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r}") from None


def _measure(args: argparse.Namespace) -> int:
    record, trace = measure_with_trace(
        args.algorithm,
        args.ranks,
        args.elements,
        dtype=args.dtype,
        seed=args.seed,
        data=args.data,
        timeout=args.timeout,
        fault=args.inject_fault,
        ranks_per_node=args.ranks_per_node,
    )
    trace_path = args.trace or (_trace_next_to(args.output) if args.output else None)
    if trace_path:
        trace.save(trace_path)
        record["trace"] = os.path.relpath(trace_path, os.path.dirname(args.output or trace_path))
    try:
        if args.output:
            write_json(args.output, record)
        else:
            print(json.dumps(record, indent=2))
    except BaseException:
        if trace_path:  # the record is what makes a run exist: no orphan trace
            Path(trace_path).unlink(missing_ok=True)
        raise
    return 0


def _trace_next_to(output: str) -> str:
    """results/x/N8_M1024.json -> results/x/N8_M1024.trace.npz"""
    return str(Path(output).with_suffix("")) + ".trace.npz"


def _algorithms(_: argparse.Namespace) -> int:
    for name in algorithms.ALGORITHMS:
        print(f"{name:20} {algorithms.describe(name)}")
    return 0


def _pingpong(args: argparse.Namespace) -> int:
    from .pingpong import pingpong  # only this command needs it

    try:
        sizes = [int(size) for size in args.sizes.split(",")]
        nbytes, seconds = pingpong(sizes, args.iterations, args.warmup)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except RankFailure as exc:
        raise MeasurementError(f"ping-pong: {exc}") from None
    rows = "".join(f"{b},{t:.9e}\n" for b, t in zip(nbytes, seconds, strict=True))
    write_text(args.output, "bytes,seconds\n" + rows)
    return 0


COMMANDS = {"measure": _measure, "algorithms": _algorithms, "pingpong": _pingpong}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 1 run failed, 2 bad input)."""
    args = _parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"collectives: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except MeasurementError as exc:
        print(f"collectives: failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("collectives: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT


def _terminate(signum: int, _frame: object) -> None:
    """Turn SIGTERM into an exception so every rank is reaped on the way out."""
    raise KeyboardInterrupt
