"""Every fabric as one row of fabrics.csv."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv
from collectives.study.fabrics import fabric_row, load_fabric

rows = [fabric_row(load_fabric(p)) for p in snakemake.input]
write_csv(snakemake.output[0], pd.DataFrame(rows))
