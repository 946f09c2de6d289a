"""This machine's clock's selection: per library and N, the fastest of its forced
algorithms at each size, in the file each library loads. Where a forced run's probe saw the
library run another algorithm than the one forced, that time is no candidate at that size
(the log names each such size)."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import numpy as np

from collectives.run import libraries
from collectives.run.files import write_csv, write_text
from collectives.study import paths, selection, tuning

keys = [tuple(key) for key in json.loads(snakemake.params.runs)]
forced = {}
for (library, setting, ranks), run, probe in zip(
    keys, snakemake.input.forced, snakemake.input.probes, strict=True
):
    try:
        timed = tuning.setting_timings(setting, json.loads(Path(run).read_text()))
        seen = tuning.setting_observed(setting, json.loads(Path(probe).read_text()))
    except ValueError as exc:
        raise SystemExit(f"{library} N={ranks}: {exc}") from None
    for forced_setting, elements, ran in tuning.disobeyed(library, seen):
        timed[forced_setting].pop(elements, None)  # it stands for no algorithm it can name
        print(f"{library} N={ranks}: {forced_setting} at M={elements} ran {'|'.join(ran)}:"
              " no candidate there", file=sys.stderr)  # fmt: skip
    for forced_setting, by_size in timed.items():
        algorithm = tuning.forced_algorithm(forced_setting)
        forced[(library, int(ranks), algorithm)] = {
            m: timing.time_median_s for m, timing in by_size.items()
        }
table = tuning.clock_selection(forced, np.dtype(snakemake.params.dtype).itemsize)
write_csv(snakemake.output.table, table)
trees = libraries.mpich_trees_of(snakemake.input.libraries)
for name in snakemake.params.libraries:  # every file of output.exports
    rows = table[table.library == name].drop(columns="library")
    for suffix, text in selection.export(name, rows, trees).items():
        write_text(paths.selection(paths.CLOCK, name, suffix), text)
