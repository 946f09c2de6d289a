"""Real clusters' osu_allreduce against the model ladder, from their own micro-benchmarks."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_csv
from collectives.study.fabrics import load_fabric
from collectives.study.validation import clusters_against_clock

fabrics = {fabric.name: fabric for fabric in map(load_fabric, snakemake.input.fabrics)}
table = clusters_against_clock(
    json.loads(snakemake.params.clusters), fabrics, list(snakemake.params.algorithms), Path(".")
)
write_csv(snakemake.output[0], table)
