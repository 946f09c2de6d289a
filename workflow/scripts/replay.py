"""Every run's trace replayed on one fabric."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.fabrics import Fabric
from collectives.records import write_csv
from collectives.replay import replay_runs

fabric = Fabric.from_dict(json.loads(Path(snakemake.input.fabric).read_text()))
table = pd.DataFrame(replay_runs(snakemake.input.records, fabric.topology()))
table.insert(0, "fabric", fabric.name)
write_csv(snakemake.output[0], table)
