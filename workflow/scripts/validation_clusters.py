"""Every real cluster's rows (one job each) in one table, by cluster name: the files joined
as they are, under one header."""

import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_text
from collectives.study.validation import CLUSTER_COLUMNS

header = ",".join(CLUSTER_COLUMNS) + "\n"
rows = []
for path in snakemake.input:
    first, *lines = open(path).read().splitlines(keepends=True)
    if first != header:
        raise ValueError(f"{path}: its columns are not validation_clusters.csv's")
    rows.extend(lines)
write_text(snakemake.output[0], header + "".join(rows))
