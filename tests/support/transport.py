"""Run a small program on the queue transport and return its RankRun."""

from __future__ import annotations

import numpy as np

from collectives.transport.launch import RankRun
from collectives.transport.queue import launch, shared_array


def run_program(size, program, *, elements=1, dtype=np.float64, largest=1 << 20, **kw) -> RankRun:
    """Launch `program(comm, None)` on `size` ranks; each returns `elements` values."""
    return launch(
        size,
        lambda rank: None,
        program,
        results=shared_array((size, elements), dtype),
        largest_message=largest,
        timeout=kw.pop("timeout", 30),
        **kw,
    )
