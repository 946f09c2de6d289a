"""Merge every run record into measurements.csv and seed_check.md; fail on a bad run."""

import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives import tables
from collectives.records import write_csv, write_text

table = tables.measurements_table(tables.load_records(snakemake.input))
tables.check_runs(table)
write_csv(snakemake.output.measurements, table)
write_text(snakemake.output.seed_check, tables.seed_check_markdown(table))
print(f"{len(table)} runs, all verified and equal to theory", file=sys.stderr)
