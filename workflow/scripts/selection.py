"""Selection thresholds per fabric and N, each fabric's selection in the files each MPI
library loads (sizes its own rule already runs as the model would left to it), and the
comparison with each library's published decision."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import numpy as np
import pandas as pd

from collectives.run import libraries
from collectives.run.files import write_csv, write_text
from collectives.study import markdown, paths, selection

dtype, names = snakemake.params.dtype, snakemake.params.libraries
costs = pd.read_csv(snakemake.input.costs)
fabrics = pd.read_csv(snakemake.input.fabrics)
table = selection.selection_table(fabrics, costs, dtype, names)
write_csv(snakemake.output.table, table)
trees = libraries.mpich_trees_of(snakemake.input.libraries)
rules, itemsize = selection.own_rules(snakemake.input.libraries), np.dtype(dtype).itemsize
for fabric, name in snakemake.params.exports:  # every file of output.exports
    rows = selection.leave_to_library(table[table.fabric == fabric], rules[name], itemsize)
    for suffix, text in selection.export(name, rows, trees).items():
        write_text(paths.selection(fabric, name, suffix), text)
agreement = selection.library_agreement(costs, fabrics, table, dtype)
write_text(snakemake.output.libraries, markdown.libraries_markdown(agreement, dtype))
