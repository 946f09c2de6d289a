"""The phase map: the cheapest algorithm over (message size, N), per fabric."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study import plotting

params = snakemake.params
figure = plotting.phase_figure(
    pd.read_csv(snakemake.input.costs),
    pd.read_csv(snakemake.input.crossover),
    params.dtype,
    params.algorithms,
)
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
