"""Every run's trace replayed on one fabric."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.fabrics import Fabric
from collectives.records import write_csv
from collectives.replay import replay_runs
from collectives.tables import record_paths

fabric = Fabric.from_dict(json.loads(Path(snakemake.input.fabric).read_text()))
runs = record_paths(snakemake.params.results, pd.read_csv(snakemake.input.measurements))
table = pd.DataFrame(replay_runs(runs, fabric.topology()))
table.insert(0, "fabric", fabric.name)
write_csv(snakemake.output[0], table)
