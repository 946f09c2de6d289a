"""Selection thresholds per fabric and N, each fabric's selection in the file each MPI
library loads, and the comparison with MPICH's and Open MPI's own rules."""

import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run import libraries
from collectives.run.files import write_csv, write_text
from collectives.study import markdown, paths, selection

dtype, names = snakemake.params.dtype, snakemake.params.libraries
costs = pd.read_csv(snakemake.input.costs)
fabrics = pd.read_csv(snakemake.input.fabrics)
table = selection.selection_table(fabrics, costs, dtype, names)
write_csv(snakemake.output.table, table)
found = {Path(p).stem: libraries.load(p) for p in snakemake.input.libraries}
tree = libraries.mpich_default_selection(found["mpich"]) if "mpich" in found else None
for fabric in fabrics.fabric:
    for name in names:
        text = selection.export(name, table[table.fabric == fabric], tree)
        write_text(paths.selection(fabric, name), text)
agreement = selection.library_agreement(costs, fabrics, table, dtype)
write_text(snakemake.output.libraries, markdown.libraries_markdown(agreement, dtype))
