"""Merge every run record into measurements.csv and seed_check.md; fail on a bad run, and
name and remove every bad record or trace (aggregate.load_runs) so that a rerun measures it
again."""

import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_csv, write_text
from collectives.study import aggregate, markdown

table = aggregate.measurements_table(
    [record for record, _ in aggregate.load_runs(snakemake.input.records, snakemake.input.traces)]
)
aggregate.check_runs(table)
write_csv(snakemake.output.measurements, table)
write_text(snakemake.output.seed_check, markdown.seed_check_markdown(table))
print(f"{len(table)} runs, all verified and equal to theory", file=sys.stderr)
