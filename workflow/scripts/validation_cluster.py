"""One real cluster's osu_allreduce against the model ladder, from its own micro-benchmarks."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_csv
from collectives.study.fabrics import load_fabric
from collectives.study.validation import clusters_against_clock

fabrics = {fabric.name: fabric for fabric in map(load_fabric, snakemake.input.fabrics)}
cluster = {snakemake.wildcards.cluster: json.loads(snakemake.params.entry)}
table = clusters_against_clock(cluster, fabrics, list(snakemake.params.algorithms), Path("."))
write_csv(snakemake.output[0], table)
