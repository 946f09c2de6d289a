"""Speedup of each library's MPI_Allreduce with our selections over its default."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study import plotting

figure = plotting.tuned_vs_default_figure(pd.read_csv(snakemake.input[0]))
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
