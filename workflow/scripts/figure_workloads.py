"""The workloads' TP and DP all-reduces on the phase maps of their fabrics."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study import plotting

params = snakemake.params
figure = plotting.workloads_figure(
    pd.read_csv(snakemake.input.costs),
    pd.read_csv(snakemake.input.crossover),
    pd.read_csv(snakemake.input.workloads),
    params.dtype,
    params.algorithms,
)
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
