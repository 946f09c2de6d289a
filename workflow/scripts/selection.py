"""Selection thresholds per fabric and N, MPICH's JSON for each fabric, and the comparison
with MPICH's and Open MPI's own rules."""

import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives import selection
from collectives.records import write_csv, write_text

costs = pd.read_csv(snakemake.input.costs)
fabrics = pd.read_csv(snakemake.input.fabrics)
table = selection.selection_table(fabrics, costs, snakemake.params.dtype)
write_csv(snakemake.output.table, table)
for path in snakemake.output.mpich:
    selection.write_mpich_json(path, table[table.fabric == Path(path).stem])
report = selection.compare_with_libraries(costs, fabrics, table, snakemake.params.dtype)
write_text(snakemake.output.libraries, report)
