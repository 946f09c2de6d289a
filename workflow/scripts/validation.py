"""This machine's timed runs against every model's prediction on the calibrated fabrics."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.model.fabric import Fabric
from collectives.run.files import load_trace, write_csv
from collectives.study import validation

inputs = snakemake.input
fabrics = [Fabric.from_dict(json.loads(Path(path).read_text())) for path in inputs.fabrics]
points = [tuple(point) for point in json.loads(snakemake.params.points)]
traces = dict(zip(points, map(load_trace, inputs.traces), strict=True))
table = validation.model_against_clock(
    pd.read_csv(inputs.wallclock),
    {fabric.name: fabric for fabric in fabrics},
    json.loads(snakemake.params.calibration),
    traces,
)
write_csv(snakemake.output.validation, table)
write_csv(snakemake.output.crossover, validation.crossover_against_clock(table))
clusters = pd.read_csv(inputs.clusters)
write_csv(snakemake.output.summary, validation.error_summary(table, clusters))
