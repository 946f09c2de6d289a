"""One GPU system's nccl-tests log beside each rung's prediction."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_csv
from collectives.study.fabrics import load_fabric
from collectives.study.gpu import gpu_against_clock

fabrics = {fabric.name: fabric for fabric in map(load_fabric, snakemake.input.fabrics)}
table = gpu_against_clock(
    {snakemake.wildcards.system: json.loads(snakemake.params.entry)},
    fabrics,
    list(snakemake.params.algorithms),
    Path("."),
)
write_csv(snakemake.output[0], table)
