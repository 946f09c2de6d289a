"""Every run's trace replayed on one fabric."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.model.fabric import Fabric
from collectives.run.files import write_csv
from collectives.study.aggregate import replayed_runs

inputs = snakemake.input
fabric = Fabric.from_dict(json.loads(Path(inputs.fabric).read_text()))
table = pd.DataFrame(replayed_runs(inputs.records, inputs.traces, fabric))
table.insert(0, "fabric", fabric.name)
write_csv(snakemake.output[0], table)
