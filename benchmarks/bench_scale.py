"""Benchmark of the model at scale: a trace by classes of ranks beside the whole one.

    python benchmarks/bench_scale.py [--largest 131072] [--whole-up-to 1024] [--repeat 3]
                                     [--plot docs/scale_growth.png]

For ring and NCCL's ring (M = 1024 elements a rank, float32) on nodes of 8 ranks whose
links share no port (NCCL's own view of a system), times the dry trace and its replay from
N = 8 up to --largest: by classes (one node's ranks, copied out from the shift's representatives),
and as the whole trace up to
--whole-up-to, each a median of --repeat interleaved runs with its range, and checks that the
two replays agree to the bit. Then a 1,152-rank cluster (32 nodes of 36 ranks sharing one
NIC), whose shared ports need the whole trace: its trace made from the classes, beside the
dry trace of every rank. Then NCCL's double binary tree (no shift) traced by its roles
beside every rank run, the two traces checked equal. Then recursive doubling and the
hierarchical all-reduce, whose swaps name no buffer for what they receive, traced with the
ranks in turn beside every rank a thread, the traces checked equal. Prints peak memory (the
process's maximum resident set). With --plot, draws the time against N, log-log, for each algorithm
by classes and whole (each point its median, its bar the range), and writes its data beside
it as CSV.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from collectives import registry
from collectives.model.fabric import Fabric, LinkClass
from collectives.model.replay import replay
from collectives.transport import dry
from collectives.transport.dry import dry_trace

NET = LinkClass(5e-6, 1 / 25e9)  # an InfiniBand-like step and rate (an example, not a fit)
NVLINK = LinkClass(1e-6, 1 / 150e9)
PER_NODE, PER_RANK = 8, 1024
TREE_POINTS = [(128, 1 << 30), (1024, 1 << 27)]  # (N, bytes): a GB200 system's 4 GPUs a tray
# swaps that name no buffer for what they receive, on nodes of 36: (algorithm, N)
SWAP_POINTS = [("recursive_doubling", 1152), ("recursive_doubling", 4096), ("hierarchical", 1152)]


def interleaved(functions: dict[str, Callable[[], float]], repeat: int) -> dict[str, list[float]]:
    """Each function's times over `repeat` rounds, the functions taking turns in each;
    each returns what it computed, kept to compare."""
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            started = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - started)
    return times


def shown(times: list[float]) -> str:
    return f"{statistics.median(times):8.3f} s [{min(times):.3f}, {max(times):.3f}]"


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def by_classes(entry, parameters, ranks, elements, fabric, results) -> None:
    """Trace by classes and replay, the time kept in `results`."""
    traced = entry.trace(ranks, elements, 4, parameters, fabric.topology)
    results["classes"] = replay(traced, fabric)


def whole(entry, parameters, ranks, elements, fabric, results) -> None:
    """The dry trace of every rank and its replay, the time kept in `results`."""
    traced = dry_trace(entry.bind(**parameters), ranks, elements, 4)
    results["whole"] = replay(traced, fabric)


def traced_alike(
    makers: dict[str, Callable[[], object]], repeat: int, what: str
) -> tuple[dict[str, list[float]], dict[str, object]]:
    """Each way of making one trace timed over `repeat` interleaved rounds, and the traces;
    SystemExit naming `what` unless every way made the same trace."""
    traces: dict[str, object] = {}

    def kept(way: str) -> None:
        traces[way] = makers[way]()

    times = interleaved({way: functools.partial(kept, way) for way in makers}, repeat)
    first, *others = traces.values()
    columns = ("offsets", "kind", "peer", "amount")
    if not all((getattr(first, c) == getattr(o, c)).all() for o in others for c in columns):
        raise SystemExit(f"{what}: the traces differ")
    return times, traces


def plot_growth(rows: list[dict], path: Path) -> None:
    """Time against N, log-log, per algorithm and way of tracing, with N and N² guides
    from the smallest N's time over the range of each way; the data beside it as CSV."""
    from collectives.study.figures import style

    data = pd.DataFrame(rows)
    fig, (axis,) = style.panels(1, height=2.8)
    for (name, way), group in data.groupby(["algorithm", "way"], sort=False):
        axis.errorbar(
            group.ranks, group.median_s, yerr=[group.median_s - group.min_s,
                                               group.max_s - group.median_s],
            color=style.colour(name), marker=style.marker(name), markersize=3,
            linestyle="-" if way == "classes" else ":", capsize=2, linewidth=1,
            label=f"{style.label(name)}, {'by classes' if way == 'classes' else 'whole trace'}",
        )  # fmt: skip
    first = data[data.way == "classes"].sort_values("ranks").iloc[0]
    for power, way, text, ha in ((1, "classes", "∝ N", "right"), (2, "whole", "∝ N²", "left")):
        ends = data[data.way == way].ranks.agg(["min", "max"]).to_numpy(dtype=float)
        guide = first.median_s * (ends / first.ranks) ** power
        axis.plot(ends, guide, color="0.6", linewidth=0.8, linestyle="--")
        offset = (3 if ha == "left" else -3, -3)
        axis.annotate(text, (ends[1], guide[1]), xytext=offset, textcoords="offset points",
                      fontsize=7, color="0.4", va="top", ha=ha)  # fmt: skip
    axis.set(xscale="log", yscale="log", xlabel="ranks N", ylabel="trace + replay (s)")
    axis.set_title("The model's cost with N, M = 1,024 float32 a rank", fontsize=8)
    style.legend_below(fig, axis.get_legend_handles_labels()[0])
    fig.savefig(path, dpi=200)
    data.to_csv(path.with_suffix(".csv"), index=False)
    print(f"plotted: {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--largest", type=int, default=131072)
    parser.add_argument("--whole-up-to", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plot", type=Path, help="draw the growth with N to this PNG")
    args = parser.parse_args()
    rows: list[dict] = []
    print(f"machine: {platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}")
    print(
        f"{'algorithm':10} {'N':>7}  {'classes: trace + replay':>33}  {'whole: trace + replay':>33}"
    )
    ranks = PER_NODE
    while ranks <= args.largest:
        fabric = Fabric(
            "nodes", "structured", NET, intra=NVLINK, ranks_per_node=PER_NODE
        )  # fmt: skip
        for name in ("ring", "nccl_ring"):
            entry = registry.get(name)
            parameters = entry.resolve({}, ranks)
            elements = ranks * PER_RANK
            results: dict[str, float] = {}
            point = (entry, parameters, ranks, elements, fabric, results)
            runs = {"classes": functools.partial(by_classes, *point)}
            if ranks <= args.whole_up_to:
                runs["whole"] = functools.partial(whole, *point)
            times = interleaved(runs, args.repeat)
            if "whole" in results and results["whole"] != results["classes"]:
                raise SystemExit(f"{name} N={ranks}: classes {results['classes']} != whole")
            rows += [
                {"algorithm": name, "ranks": ranks, "way": way,
                 "median_s": statistics.median(spent), "min_s": min(spent), "max_s": max(spent)}
                for way, spent in times.items()
            ]  # fmt: skip
            print(
                f"{name:10} {ranks:7d}  {shown(times['classes']):>33}  "
                f"{shown(times['whole']) if 'whole' in times else 'not run':>33}"
            )
        ranks *= 4
    cluster = Fabric(
        "cluster", "structured", NET, intra=LinkClass(3e-7, 1 / 20e9),
        ranks_per_node=36, nic_per_node=1,
    )  # fmt: skip
    ring = registry.get("ring")
    elements = 1152 * PER_RANK
    times = interleaved(
        {
            "trace by classes, expanded": lambda: (
                ring.trace(1152, elements, 4, {}, cluster.topology).expanded
            ),
            "dry trace of every rank": lambda: dry_trace(ring.allreduce, 1152, elements, 4),
        },
        args.repeat,
    )
    for name, spent in times.items():
        print(f"ring, 1,152 ranks on nodes of 36 sharing a NIC, {name}: {shown(spent)}")
    traced = ring.trace(1152, elements, 4, {}, cluster.topology)
    started = time.perf_counter()
    replay(traced, cluster, pipelined=True)
    print(f"  its replay (shared ports: the whole trace): {time.perf_counter() - started:.2f} s")
    tree = registry.get("double_binary_tree")
    for ranks, nbytes in TREE_POINTS:
        parameters = tree.resolve({"ranks_per_node": 4}, ranks)
        elements = nbytes // 4
        times, traces = traced_alike(
            {
                "by roles": functools.partial(
                    tree.trace, ranks, elements, 4, parameters, cluster.topology
                ),
                "every rank": functools.partial(
                    dry_trace, tree.bind(**parameters), ranks, elements, 4
                ),
            },
            args.repeat,
            f"double binary tree N={ranks}",
        )
        print(
            f"double binary tree, {ranks} ranks on nodes of 4, {nbytes >> 20} MiB, "
            f"{len(traces['by roles'].kind):,} events: by roles {shown(times['by roles'])}, "
            f"every rank {shown(times['every rank'])}"
        )
    for name, ranks in SWAP_POINTS:
        entry = registry.get(name)
        allreduce = entry.bind(**entry.resolve(entry.on_nodes(ranks, 36), ranks))
        times, _ = traced_alike(
            {
                "in turn": functools.partial(dry_trace, allreduce, ranks, PER_RANK, 4),
                # every rank a thread, as such swaps ran before
                "threads": functools.partial(
                    dry._all_at_once, allreduce, ranks, PER_RANK, 4, ranks
                ),
            },
            args.repeat,
            f"{name} N={ranks}",
        )
        print(
            f"{name}, {ranks:,} ranks, M = {PER_RANK}: ranks in turn {shown(times['in turn'])}, "
            f"every rank a thread {shown(times['threads'])}"
        )
    print(f"peak memory: {peak_gib():.2f} GiB")
    if args.plot:
        plot_growth(rows, args.plot)


if __name__ == "__main__":
    main()
