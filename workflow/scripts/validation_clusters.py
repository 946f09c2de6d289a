"""Every real cluster's rows (one job each) in one table, in the config's order."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv

tables = [pd.read_csv(path) for path in snakemake.input]
write_csv(snakemake.output[0], pd.concat(tables, ignore_index=True) if tables else pd.DataFrame())
