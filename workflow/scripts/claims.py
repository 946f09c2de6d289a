"""The pages' claims: every marked number recomputed from this run's tables."""

import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_csv
from collectives.study.claims import check, differences, find_markers, read_tables

pages = {path: open(path, encoding="utf-8").read() for path in snakemake.input.pages}
table = check(find_markers(pages), read_tables(snakemake.input.tables))
write_csv(snakemake.output[0], table)
for line in differences(table):  # on the console and in the log: a page this run contradicts
    for stream in (sys.__stderr__, sys.stderr):
        print(f"claim differs: {line}", file=stream)
print(
    f"{len(table)} claims: "
    + ", ".join(f"{count} {status}" for status, count in table.status.value_counts().items()),
    file=sys.stderr,
)
