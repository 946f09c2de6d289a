"""NCCL's choice over node counts and message sizes of one GPU system, beside our cheapest."""

import json
import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_csv
from collectives.study.fabrics import load_fabric
from collectives.study.gpu import nccl_choice_map

choice = json.loads(snakemake.params.choice)
fabrics = {fabric.name: fabric for fabric in map(load_fabric, snakemake.input)}
table = nccl_choice_map(
    choice["system"],
    json.loads(snakemake.params.entry),
    fabrics,
    list(snakemake.params.algorithms),
    choice["nodes"],
    choice["message_bytes"],
)
write_csv(snakemake.output[0], table)
