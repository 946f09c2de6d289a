"""The `collectives` command: measure one run, list algorithms, calibrate the local fabric."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence

from . import algorithms
from .measure import DATA_KINDS, DEFAULT_TIMEOUT, DTYPES, MeasurementError, UsageError, measure
from .records import write_json
from .transport import FAULT_KINDS

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
    run.add_argument("--dtype", default="float64", help=f"one of: {', '.join(DTYPES)}")
    run.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    run.add_argument("--data", default="int", help=f"input values: {' or '.join(DATA_KINDS)}")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds (default 300)")
    run.add_argument("--output", help="write the record here (atomically) instead of stdout")
    run.add_argument("--inject-fault", metavar="KIND:RANK", help="make one rank fail (testing aid)")

    commands.add_parser("algorithms", help="list the registered algorithms")
    return parser


def _measure(args: argparse.Namespace) -> int:
    record = measure(
        args.algorithm,
        args.ranks,
        args.elements,
        dtype=args.dtype,
        seed=args.seed,
        data=args.data,
        timeout=args.timeout,
        fault=args.inject_fault,
    )
    if args.output:
        write_json(args.output, record)
    else:
        print(json.dumps(record, indent=2))
    return 0


def _algorithms(_: argparse.Namespace) -> int:
    for name in algorithms.ALGORITHMS:
        print(f"{name:20} {algorithms.describe(name)}")
    return 0


COMMANDS = {"measure": _measure, "algorithms": _algorithms}


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
