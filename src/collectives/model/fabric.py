"""Fabrics: the α-β link classes every model prices messages with, and their structure.

A link class costs α + β·bytes seconds per message (Hockney's model): α the per-message
latency, β the per-byte time (1/bandwidth). A flat fabric has one class, `link`; a two-level
fabric has G ranks per node, `intra` for messages inside a node and `link` for messages
between nodes, and maybe `nic_per_node` NIC ports that a node's inter-node messages share
(pooled, or with `rails` one block of positions each): its `topology` says where each rank
sits. γ is the time per element reduced. The closed form and the replay read the same type.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .fit import Fit
from .protocol import Segment, segment_byte_times, segment_times
from .topology import FLAT, Topology


@dataclass(frozen=True)
class LinkClass:
    """One class of links: α and β, and where they came from (given, or measured and fitted)."""

    alpha: float
    beta: float
    kind: str = "given"  # or "measured"
    fit: Fit | None = None
    measurements: dict[str, list[float]] = field(default_factory=dict, compare=False)
    segments: tuple[Segment, ...] = ()  # the protocol layer's α-β per size segment
    occupancy: tuple[float, float] | None = None  # (g, G): a message's hold on its ports
    crossbar: bool = False  # a switch joins every pair (NVSwitch): a message holds its
    # ports for its bytes·β, its α overlapping the rank's other messages that wait for no
    # receive in between, and an exchange's sends

    def time(self, nbytes: float) -> float:
        """One message of `nbytes` on this class: α + β·bytes."""
        return self.alpha + nbytes * self.beta

    def times(self, nbytes: np.ndarray) -> np.ndarray:
        """Many messages' times: by their size's segment if the class has segments."""
        if self.segments:
            return segment_times(self.segments, nbytes)
        return self.alpha + nbytes * self.beta

    def byte_times(self, nbytes: np.ndarray) -> np.ndarray:
        """Many messages' bytes·β (by their size's segment if the class has segments): the
        time their bytes take, without the latency."""
        if self.segments:
            return segment_byte_times(self.segments, nbytes)
        return nbytes * self.beta

    def holds(self, nbytes: np.ndarray) -> np.ndarray:
        """How long each message holds its ports (LogGP's g + G·bytes, measured with many
        messages in flight); the rest of its time is latency that overlaps other messages.
        Without a stream measurement a message holds its ports for all of its time; on a
        crossbar, for its bytes·β."""
        if self.crossbar:
            return nbytes * self.beta
        times = self.times(nbytes)
        if self.occupancy is None:
            return times
        gap, per_byte = self.occupancy
        return np.minimum(gap + nbytes * per_byte, times)


@dataclass(frozen=True)
class Fabric:
    """A fabric for the closed form and the replay: one link class, or two with nodes.

    `link` is the flat fabric's only class, and a two-level fabric's inter-node class: the
    one the closed form rounds·α + bytes_critical·β uses. `intra` (two-level only) prices
    messages between ranks of one node.
    """

    name: str
    kind: str  # "given", "measured" or "structured"
    link: LinkClass
    description: str = ""
    source: str = ""
    gamma: float = 0.0  # seconds per element reduced
    ranks_per_node: int | None = None
    nic_per_node: int | None = None
    intra: LinkClass | None = None
    rails: bool = False  # each NIC serves its own block of a node's positions

    @property
    def crossbar(self) -> bool:
        """Whether some link class of the fabric is a crossbar."""
        return self.link.crossbar or (self.intra is not None and self.intra.crossbar)

    @property
    def structured(self) -> bool:
        """Whether ranks sit on nodes, with two link classes."""
        return self.intra is not None

    @property
    def topology(self) -> Topology:
        """Where the ranks sit: on one node (flat), or on nodes of ranks_per_node."""
        if not self.structured:
            return FLAT
        return Topology(self.ranks_per_node, self.nic_per_node, self.rails)

    @property
    def alpha(self) -> float:
        """α of the flat model (the inter-node class of a two-level fabric)."""
        return self.link.alpha

    @property
    def beta(self) -> float:
        """β of the flat model (the inter-node class of a two-level fabric)."""
        return self.link.beta

    def fitted(self) -> list[tuple[str, LinkClass]]:
        """The (label, link) of every link class fitted from measurements."""
        links = (
            [("", self.link)]
            if self.intra is None
            else [("intra", self.intra), ("inter", self.link)]
        )
        return [
            (f"{self.name} ({label})" if label else self.name, link)
            for label, link in links
            if link.fit is not None
        ]

    @classmethod
    def on_nodes(
        cls, name: str, intra: LinkClass, inter: LinkClass, ranks_per_node: int | None,
        nic_per_node: int | None = None, rails: bool = False, **about: Any,
    ) -> Fabric:  # fmt: skip
        """A two-level fabric: nodes of `ranks_per_node` ranks joined by `intra`, and
        `inter` between them, through `nic_per_node` shared NIC ports where given (with
        `rails`, each serving one block of positions). Every two-level fabric of the study
        (a config entry, a cluster, a GPU system, NCCL's own view of one) is built here;
        `about`: the description, source and gamma."""
        return cls(
            name, "structured", inter, ranks_per_node=ranks_per_node,
            nic_per_node=nic_per_node, intra=intra, rails=rails, **about,
        )  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        """The fabric as JSON-ready data (from_dict reads it back)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fabric:
        """Rebuild a Fabric from as_dict()."""

        def link(value: dict | None) -> LinkClass | None:
            if value is None:
                return None
            fit = value.get("fit")
            if fit:  # JSON turned the interval tuples into lists
                fit = Fit(
                    **{**fit, "alpha_ci": tuple(fit["alpha_ci"]), "beta_ci": tuple(fit["beta_ci"])}
                )
            segments = tuple(Segment(**s) for s in value.get("segments", ()))
            occupancy = tuple(value["occupancy"]) if value.get("occupancy") else None
            return LinkClass(**{**value, "fit": fit, "segments": segments, "occupancy": occupancy})

        return cls(**{**data, "link": link(data["link"]), "intra": link(data.get("intra"))})
