"""Reading an exported MPICH selection file back into selection-table rows, to check it."""

from __future__ import annotations

from typing import Any

import pandas as pd


def read_mpich_json(data: dict[str, Any]) -> pd.DataFrame:
    """The inverse of mpich_json: rows of ranks, min_bytes, max_bytes, mpich_algorithm."""
    rows = []
    for size_key, sizes in data["collective=allreduce"]["comm_type=intra"].items():
        if size_key == "comm_size=any":
            continue
        ranks, low = int(size_key.removeprefix("comm_size<=")), 0
        for message_key, leaf in sizes.items():
            (algorithm_key,) = leaf
            high = None if message_key == "avg_msg_size=any" else int(message_key.split("<=")[1])
            rows.append(
                {
                    "ranks": ranks,
                    "min_bytes": low,
                    "max_bytes": high,
                    "mpich_algorithm": algorithm_key.removeprefix("algorithm="),
                }
            )
            low = (high or 0) + 1
    return pd.DataFrame(rows).astype({"max_bytes": "Int64"})
