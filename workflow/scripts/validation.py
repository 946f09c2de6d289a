"""This machine's timed runs against their predictions on the calibrated fabrics."""

import json
import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv
from collectives.study import validation

inputs = snakemake.input
table = validation.model_against_clock(
    pd.read_csv(inputs.wallclock),
    pd.read_csv(inputs.fabrics),
    json.loads(snakemake.params.calibration),
    pd.concat([pd.read_csv(path) for path in inputs.replays], ignore_index=True),
)
write_csv(snakemake.output.validation, table)
write_csv(snakemake.output.crossover, validation.crossover_against_clock(table))
clusters = pd.read_csv(inputs.clusters)
write_csv(snakemake.output.summary, validation.error_summary(table, clusters))
