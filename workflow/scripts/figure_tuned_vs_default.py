"""Speedup of each library's MPI_Allreduce with our selections over its default."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study.figures import style, tuned_vs_default

plot = tuned_vs_default.draw(pd.read_csv(snakemake.input[0]))
style.save(plot, *snakemake.output)
