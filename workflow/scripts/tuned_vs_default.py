"""Each library's MPI_Allreduce at its default, with the model's selection and with the
clock's: times, speedups, the algorithm each file names and the one the probe saw."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import numpy as np
import pandas as pd

from collectives.run import libraries
from collectives.run.files import write_csv, write_text
from collectives.study import markdown, selection, tuning

keys = [tuple(k) for k in json.loads(snakemake.params.runs)]
runs, observed = {}, {}
for (library, setting, ranks), path in zip(keys, snakemake.input.runs, strict=True):
    timed = tuning.setting_timings(setting, json.loads(Path(path).read_text()))
    runs.update({(library, named, int(ranks)): by_size for named, by_size in timed.items()})
for (library, setting, ranks), path in zip(
    json.loads(snakemake.params.probes), snakemake.input.probes, strict=True
):
    try:
        seen = tuning.setting_observed(setting, json.loads(Path(path).read_text()))
    except ValueError as exc:
        raise SystemExit(f"{path}: {exc}") from None
    observed[(library, setting, int(ranks))] = seen[setting]
model = pd.read_csv(snakemake.input.model).astype({"max_bytes": "Int64"})
itemsize = np.dtype(snakemake.params.dtype).itemsize
rules = selection.own_rules(snakemake.input.libraries)
selections = {  # each library's model selection: that of the fabric it was calibrated on,
    "model": pd.concat(  # as exported (sizes its own rule runs alike left to it)
        [
            selection.leave_to_library(
                model[model.fabric == fabric], rules[library], itemsize
            ).assign(library=library)
            for library, fabric in json.loads(snakemake.params.fabrics).items()
        ]
    ),
    "clock": pd.read_csv(snakemake.input.clock).astype({"max_bytes": "Int64"}),
}
versions = {Path(p).stem: libraries.load(p).version for p in snakemake.input.libraries}
table = tuning.tuned_vs_default(runs, observed, selections, versions, itemsize)
write_csv(snakemake.output.table, table)
write_text(snakemake.output.summary, markdown.tuning_markdown(tuning.summary(table)))
