"""Topologies: where each rank sits, which link class joins two ranks, and which shared
ports a message between nodes holds.

A flat topology puts every rank on one node with one link class between any two of them.
A two-level one puts G consecutive ranks on each node (rank r on node r // G, at position
r mod G), with one link class inside a node and another between nodes; a node's k NICs are
either a pool its inter-node messages share (a message takes the NIC free earliest), or
rails, each NIC serving its own block of G/k consecutive positions (rail-optimised nodes,
where position l of every node reaches the others through NIC l·k // G). Everything that
asks "which node is this rank on" asks a Topology: the algorithms (the node's ranks, the
ranks at the same position on every node, as MPICH's smp all-reduce asks for its
node_comm and node_roots_comm), the closed forms, the replay and the per-link-class counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

INTRA, INTER = "intra", "inter"  # the link classes of a two-level topology


@dataclass(frozen=True)
class Topology:
    """Ranks on nodes of `ranks_per_node` (None: flat, one node), with `nic_per_node`
    shared NIC ports per node (None: no port shared), pooled or, with `rails`, one block of
    positions per NIC."""

    ranks_per_node: int | None = None
    nic_per_node: int | None = None
    rails: bool = False

    def __post_init__(self) -> None:
        group, nics = self.ranks_per_node, self.nic_per_node
        if group is not None and group < 1:
            raise ValueError(f"ranks_per_node must be at least 1, got {group}")
        if nics is not None and (group is None or nics < 1):
            raise ValueError("nic_per_node needs ranks_per_node and must be at least 1")
        if self.rails and (nics is None or group % nics):
            raise ValueError(f"rails need nic_per_node dividing ranks_per_node {group}, got {nics}")

    @property
    def levels(self) -> int:
        """1 for a flat topology, 2 for ranks on nodes."""
        return 1 if self.ranks_per_node is None else 2

    @property
    def shares_nics(self) -> bool:
        """Whether ranks book one pool of NIC ports together (a rail of one position each
        is its rank's own)."""
        if self.nic_per_node is None:
            return False
        return (
            self.ranks_per_node // self.nic_per_node > 1 if self.rails else self.ranks_per_node > 1
        )

    def fits(self, ranks: int) -> bool:
        """Whether `ranks` fill whole nodes."""
        return self.ranks_per_node is None or ranks % self.ranks_per_node == 0

    def nodes(self, ranks: int) -> int:
        """How many nodes `ranks` ranks occupy."""
        return 1 if self.ranks_per_node is None else -(-ranks // self.ranks_per_node)

    def node(self, rank: int) -> int:
        """The node rank `rank` sits on."""
        return 0 if self.ranks_per_node is None else rank // self.ranks_per_node

    def position(self, rank: int) -> int:
        """Its position inside its node."""
        return rank if self.ranks_per_node is None else rank % self.ranks_per_node

    def nodes_of(self, ranks: np.ndarray) -> np.ndarray:
        """node() of many ranks at once."""
        ranks = np.asarray(ranks)
        return np.zeros_like(ranks) if self.ranks_per_node is None else ranks // self.ranks_per_node

    def crosses(self, senders: np.ndarray, receivers: np.ndarray) -> np.ndarray:
        """Whether each message from senders[i] to receivers[i] travels between nodes."""
        return self.nodes_of(senders) != self.nodes_of(receivers)

    def link_class(self, rank: int, peer: int) -> str:
        """INTRA or INTER: the class of the links between two ranks."""
        return INTER if self.node(rank) != self.node(peer) else INTRA

    def node_ranks(self, rank: int, ranks: int) -> list[int]:
        """The ranks of `rank`'s node, in order (MPICH's node_comm)."""
        if self.ranks_per_node is None:
            return list(range(ranks))
        first = self.node(rank) * self.ranks_per_node
        return list(range(first, min(first + self.ranks_per_node, ranks)))

    def peers_across(self, rank: int, ranks: int) -> list[int]:
        """The ranks at `rank`'s position on every node, in node order (MPICH's
        node_roots_comm, for position 0)."""
        if self.ranks_per_node is None:
            return [rank]
        return list(range(self.position(rank), ranks, self.ranks_per_node))

    def nic(self, rank: int) -> tuple[tuple[int, int], int] | None:
        """The pool of NIC ports `rank`'s inter-node messages take, as (key, ports): the
        node's k pooled ports, or with rails the one port of its block; None where no port
        is shared."""
        if self.nic_per_node is None:
            return None
        if not self.rails:
            return (self.node(rank), 0), self.nic_per_node
        block = self.ranks_per_node // self.nic_per_node
        return (self.node(rank), self.position(rank) // block), 1


FLAT = Topology()
