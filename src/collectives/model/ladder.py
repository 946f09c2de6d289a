"""The model ladder: the same trace priced by models of growing detail, each one layer more.

- `alpha-beta`: rounds·α + bytes_critical·β, the textbook closed form (the seed's model);
- `+gamma`: the trace replayed on the fabric's flat link class, reductions costing γ each;
- `+structure`: replayed on the fabric itself: link classes, nodes and shared NICs;
- `+resources`: and the ranks share what a node has. On this machine each message is priced
  by the link measured with as many ranks swapping messages at once as the run has (the
  `exchange` benchmark: cores, memory bandwidth and the transport's way of waiting, as
  they are), and reductions queue for the cores (replay.Cores). Between nodes, where a
  link's occupancy was measured (a stream of messages: osu_bw, osu_mbw_mr), a message holds
  its ports and NICs only that long, its latency overlapping other messages (LogGP's L
  and g); where a node has more ranks than cores, sends and receives queue for them too;
- `+protocol`: and each measured link prices a message by its size's segment
  (model.protocol: α and β per segment, breakpoints found in the ping-pong data).

Each layer's parameters come from micro-benchmarks (ping-pong, exchanges, streams, timed
reductions, the cores the ranks get), never from the all-reduce times the ladder predicts.
"""

from __future__ import annotations

from dataclasses import replace

from ..transport.trace import Trace
from .cost import closed_form
from .fabric import Fabric, LinkClass
from .fit import Points
from .protocol import MIN_POINTS, fit_segments
from .replay import Cores, replay

MODELS = ("alpha-beta", "+gamma", "+structure", "+resources", "+protocol")


def with_protocol(fabric: Fabric) -> Fabric:
    """The fabric whose measured link classes have α-β segments fitted to their points."""

    def segmented(link: LinkClass | None) -> LinkClass | None:
        if link is None or len(link.measurements.get("bytes", ())) < MIN_POINTS:
            return link  # given, or too few points to split
        points = Points(*(link.measurements[k] for k in ("bytes", "seconds")))
        return replace(link, segments=fit_segments(points))

    return replace(fabric, link=segmented(fabric.link), intra=segmented(fabric.intra))


def rungs(fabric: Fabric, shared: Fabric | None = None) -> dict[str, Fabric]:
    """The fabric each replayed model prices with (computed once per fabric): `shared`,
    where given, is the fabric whose links were measured with every rank of the run busy
    at once, for the resources and protocol layers."""
    flat = replace(fabric, intra=None, ranks_per_node=None, nic_per_node=None)
    busy = shared or fabric
    return {
        "+gamma": flat,
        "+structure": fabric,
        "+resources": busy,
        "+protocol": with_protocol(busy),
    }


def predict(
    trace: Trace,
    rounds: int,
    bytes_critical: int,
    fabrics: dict[str, Fabric],
    cores: Cores | None,
) -> dict[str, float]:
    """Every model's time in seconds for one run (its trace and its measured counts) on
    the rungs of one fabric."""
    fabric = fabrics["+structure"]
    unstructured = replay(trace, fabrics["+gamma"])
    structured = replay(trace, fabric) if fabric.structured else unstructured
    return {
        "alpha-beta": float(closed_form(rounds, bytes_critical, fabric.alpha, fabric.beta)),
        "+gamma": unstructured,
        "+structure": structured,
        "+resources": replay(trace, fabrics["+resources"], cores, pipelined=True),
        "+protocol": predict_top(trace, fabrics, cores),
    }


def predict_top(trace: Trace, fabrics: dict[str, Fabric], cores: Cores | None) -> float:
    """The top model's time alone (the headline prediction), on the rungs of one fabric."""
    return replay(trace, fabrics[MODELS[-1]], cores, pipelined=True)


def column(model: str) -> str:
    """A model's column in the tables: 'alpha-beta' -> 'alpha_beta_s', '+gamma' -> 'gamma_s'."""
    return model.lstrip("+").replace("-", "_") + "_s"
