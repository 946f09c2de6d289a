"""Summarize every job's benchmark file per rule: results/tables/pipeline_timing.csv."""

import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_csv
from collectives.study import paths
from collectives.study.pipeline_timing import pipeline_timing, timing_line

table = pipeline_timing(paths.BENCHMARKS)
write_csv(snakemake.output.table, table)
print(timing_line(table), file=sys.stderr)
