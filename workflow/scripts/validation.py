"""This machine's timed runs against every model's prediction on the calibrated fabrics."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv
from collectives.study import validation
from collectives.study.fabrics import load_fabric, read_csv_points

inputs = snakemake.input
fabrics = [load_fabric(path) for path in inputs.fabrics]
exchanges = {
    (transport, ranks): Path(path)
    for (transport, ranks), path in zip(
        json.loads(snakemake.params.exchanges), inputs.exchanges, strict=True
    )
}
table = validation.model_against_clock(
    pd.read_csv(inputs.wallclock),
    {fabric.name: fabric for fabric in fabrics},
    json.loads(snakemake.params.calibration),
    {key: read_csv_points(path) for key, path in exchanges.items()},
    {
        key: (read_csv_points(path, seconds="low_s"), read_csv_points(path, seconds="high_s"))
        for key, path in exchanges.items()
    },
    snakemake.params.noise_bound,
)
write_csv(snakemake.output.validation, table)
write_csv(snakemake.output.crossover, validation.crossover_against_clock(table))
clusters = pd.read_csv(inputs.clusters)
write_csv(snakemake.output.summary, validation.error_summary(table, clusters))
