"""Every GPU system's predictions in one table, the per-system summary, and the busbw
table."""

import json
import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv
from collectives.study.gpu import busbw_meaning, gpu_summary

table = pd.concat([pd.read_csv(path) for path in snakemake.input], ignore_index=True)
write_csv(snakemake.output.table, table)
write_csv(snakemake.output.summary, gpu_summary(table))
write_csv(snakemake.output.busbw, busbw_meaning(table, json.loads(snakemake.params.systems)))
