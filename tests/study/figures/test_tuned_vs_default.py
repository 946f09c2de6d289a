"""The tuned-vs-default figure: a panel per library, each speedup's interval shaded."""

from __future__ import annotations

import pandas as pd

from collectives.study.figures import tuned_vs_default
from tests.support.printed import assert_printed


def test_a_panel_per_library_and_both_selections_per_n(tmp_path):
    rows = [{"library": library, "version": f"{library} 1.0 for Linux* OS", "ranks": n,
             "message_bytes": 8 * 4**k, "clock_speedup": 1 + k / 10,
             "model_speedup": 1 - k / 20, "clock_speedup_low": 0.9 + k / 10,
             "clock_speedup_high": 1.1 + k / 10, "model_speedup_low": 0.9 - k / 20,
             "model_speedup_high": 1.1 - k / 20}
            for library in ("mpich", "openmpi", "impi")
            for n in (2, 4, 8) for k in range(8)]  # fmt: skip
    plot = tuned_vs_default.draw(pd.DataFrame(rows))
    titles = [axis.get_title() for axis in plot.figure.axes if axis.get_visible()]
    assert titles == ["mpich 1.0", "openmpi 1.0", "impi 1.0"]
    data = assert_printed(plot, tmp_path, "tuned_vs_default")
    assert len(data) == 2 * len(rows)
    assert set(data.selection) == {"clock", "model"}
