"""The workloads' TP and DP all-reduces on the phase maps of their fabrics."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study.figures import style, workloads

params = snakemake.params
plot = workloads.draw(
    pd.read_csv(snakemake.input.costs),
    pd.read_csv(snakemake.input.workloads),
    params.dtype,
    params.algorithms,
)
style.save(plot, *snakemake.output)
