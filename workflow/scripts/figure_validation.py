"""Predicted against measured times: this machine's transports and real clusters."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study.figures import style, validation

plot = validation.draw(
    pd.read_csv(snakemake.input.validation), pd.read_csv(snakemake.input.clusters)
)
style.save(plot, *snakemake.output)
