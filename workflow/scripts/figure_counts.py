"""Measured against theoretical bytes and rounds as N grows."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study import plotting

params = snakemake.params
figure = plotting.counts_figure(
    pd.read_csv(snakemake.input[0]),
    params.elements,
    params.dtype,
    params.algorithms,
)
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
