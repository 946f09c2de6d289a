"""The wall-clock figure: a panel per transport and N, ties merged, libraries in grey."""

from __future__ import annotations

import numpy as np
import pandas as pd

from collectives.study.figures import wallclock
from collectives.study.figures.style import label
from tests.support.printed import assert_printed

SIZES = [8 * 4**k for k in range(8)]


def test_panels_per_transport_and_n_with_tied_algorithms_on_one_line(tmp_path):
    rows = [{"transport": transport, "ranks": n, "algorithm": name, "message_bytes": m,
             "time_median_s": 1e-5 * n * (1 + m / 1e3) * (2 if name == "ring" else 1)}
            for transport in ("queue", "mpi") for n in (2, 4, 8)
            for name in ("recursive_doubling", "rabenseifner", "ring", "MPI_Allreduce")
            for m in SIZES if transport == "mpi" or name != "MPI_Allreduce"]  # fmt: skip
    plot = wallclock.draw(pd.DataFrame(rows))
    labels = [text.get_text() for text in plot.figure.legends[0].get_texts()]
    assert f"{label('recursive_doubling')} = {label('rabenseifner')}" in labels
    assert label("MPI_Allreduce") in labels
    data = assert_printed(plot, tmp_path, "wallclock")
    assert len(data) == len(rows)
    assert np.allclose(sorted(data.time_median_s), sorted(r["time_median_s"] for r in rows))
