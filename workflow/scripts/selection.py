"""Selection thresholds per fabric and N, MPICH's JSON for each fabric, and the comparison
with MPICH's and Open MPI's own rules."""

import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv, write_json, write_text
from collectives.study import markdown, selection

dtype = snakemake.params.dtype
costs = pd.read_csv(snakemake.input.costs)
fabrics = pd.read_csv(snakemake.input.fabrics)
table = selection.selection_table(fabrics, costs, dtype)
write_csv(snakemake.output.table, table)
for path in snakemake.output.mpich:
    write_json(path, selection.mpich_json(table[table.fabric == Path(path).stem]))
agreement = selection.library_agreement(costs, fabrics, table, dtype)
write_text(snakemake.output.libraries, markdown.libraries_markdown(agreement, dtype))
