"""Measured against theoretical bytes and rounds as N grows."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study.figures import counts, style

params = snakemake.params
plot = counts.draw(
    pd.read_csv(snakemake.input[0]),
    params.elements,
    params.dtype,
    params.algorithms,
)
style.save(plot, *snakemake.output)
