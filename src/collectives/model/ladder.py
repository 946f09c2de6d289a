"""The model ladder: the same trace priced by models of growing detail, each one layer more.

- `alpha-beta`: rounds·α + bytes_critical·β, the textbook closed form (the seed's model);
- `+gamma`: the trace replayed on the fabric's flat link class, reductions costing γ each;
- `+structure`: replayed on the fabric itself: link classes, nodes and shared NICs;
- `+resources`: and the ranks of a node share its cores (replay.Cores): a message's time is
  partly work on a core at each end, so more ranks than cores queue for them.

Each layer's parameters come from micro-benchmarks (ping-pong, timed reductions, the cores
the ranks get), never from the all-reduce times the ladder predicts.
"""

from __future__ import annotations

from dataclasses import replace

from ..transport.trace import Trace
from .cost import closed_form
from .fabric import Fabric
from .replay import Cores, replay

MODELS = ("alpha-beta", "+gamma", "+structure", "+resources")


def predict(
    trace: Trace, rounds: int, bytes_critical: int, fabric: Fabric, cores: Cores | None
) -> dict[str, float]:
    """Every model's time in seconds for one run (its trace and its measured counts)."""
    flat = replace(fabric, intra=None, ranks_per_node=None, nic_per_node=None)
    unstructured = replay(trace, flat)
    structured = replay(trace, fabric) if fabric.structured else unstructured
    return {
        "alpha-beta": float(closed_form(rounds, bytes_critical, fabric.alpha, fabric.beta)),
        "+gamma": unstructured,
        "+structure": structured,
        "+resources": replay(trace, fabric, cores) if cores else structured,
    }


def column(model: str) -> str:
    """A model's column in the tables: 'alpha-beta' -> 'alpha_beta_s', '+gamma' -> 'gamma_s'."""
    return model.lstrip("+").replace("-", "_") + "_s"
