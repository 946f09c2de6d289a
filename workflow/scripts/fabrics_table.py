"""Every fabric as one row of fabrics.csv."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.model.fabric import Fabric
from collectives.run.files import write_csv

rows = [Fabric.from_dict(json.loads(Path(p).read_text())).row() for p in snakemake.input]
write_csv(snakemake.output[0], pd.DataFrame(rows))
