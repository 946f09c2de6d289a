"""Message traces: what every rank did, in program order, independent of any fabric.

A trace holds, per rank, its sends (destination, bytes), receives (source, bytes) and local
reductions (elements combined), as flat columns with per-rank offsets: compact enough for a
ring at N = 256 (130k messages). The k-th send from s to d is the k-th receive at d from s
(messages between two ranks are delivered in order), which is all a replay needs. An
EXCHANGE mark (amount: k) opens k send-receive pairs whose sends need none of the pairs'
receives, so a fabric that carries several messages of a rank at once may overlap them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SEND, RECV, REDUCE, EXCHANGE = 0, 1, 2, 3
NO_PEER = -1


@dataclass(frozen=True)
class Trace:
    """Events of all ranks: rank r's are kind/peer/amount[offsets[r]:offsets[r + 1]]."""

    offsets: np.ndarray  # int64, ranks + 1
    kind: np.ndarray  # int8: SEND, RECV, REDUCE or EXCHANGE
    peer: np.ndarray  # int32: destination, source, or NO_PEER
    amount: np.ndarray  # int64: payload bytes, elements reduced, or an exchange's pairs

    @property
    def ranks(self) -> int:
        """How many ranks the trace covers."""
        return len(self.offsets) - 1

    @classmethod
    def from_ranks(cls, events: list[np.ndarray]) -> Trace:
        """Join per-rank (E_r, 3) arrays of (kind, peer, amount) rows."""
        joined = np.concatenate([e.reshape(-1, 3) for e in events]) if events else np.zeros((0, 3))
        offsets = np.concatenate([[0], np.cumsum([len(e) for e in events])]).astype(np.int64)
        return cls(
            offsets=offsets,
            kind=joined[:, 0].astype(np.int8),
            peer=joined[:, 1].astype(np.int32),
            amount=joined[:, 2].astype(np.int64),
        )
