"""Predicted against measured times: this machine's transports and real clusters."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study import plotting

figure = plotting.validation_figure(
    pd.read_csv(snakemake.input.validation), pd.read_csv(snakemake.input.clusters)
)
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
