"""Real clusters' osu_allreduce against the model fitted from their osu_latency."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv
from collectives.study.validation import clusters_against_clock

table = clusters_against_clock(
    json.loads(snakemake.params.clusters),
    pd.read_csv(snakemake.input.fabrics),
    list(snakemake.params.algorithms),
    Path("."),
)
write_csv(snakemake.output[0], table)
