"""This machine's clock's selection: per library and N, the fastest of its forced
algorithms at each size, in the file each library loads."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import numpy as np

from collectives.run import libraries
from collectives.run.files import write_csv, write_text
from collectives.study import selection, tuning

forced = {
    (library, int(ranks), setting.removeprefix("force-")): tuning.times(
        json.loads(Path(path).read_text())
    )
    for (library, setting, ranks), path in zip(
        json.loads(snakemake.params.runs), snakemake.input.forced, strict=True
    )
}
table = tuning.clock_selection(forced, np.dtype(snakemake.params.dtype).itemsize)
write_csv(snakemake.output.table, table)
tree = libraries.mpich_tree_of(snakemake.input.libraries)
for name, path in zip(snakemake.params.libraries, snakemake.output.exports, strict=True):
    rows = table[table.library == name].drop(columns="library")
    write_text(path, selection.export(name, rows, tree))
