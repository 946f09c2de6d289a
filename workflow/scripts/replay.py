"""Every run's trace replayed on one fabric."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv
from collectives.study.aggregate import replayed_runs
from collectives.study.fabrics import load_fabric

params = snakemake.params
fabric = load_fabric(snakemake.input.fabric)
table = pd.DataFrame(replayed_runs(params.records, params.traces, fabric))
table.insert(0, "fabric", fabric.name)
write_csv(snakemake.output[0], table)
