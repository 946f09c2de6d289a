"""The crossover figures: time relative to the fastest against message size at one N, a
panel per fabric (the headline's few, or every one)."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study.figures import crossover, style

params = snakemake.params
plot = crossover.draw(
    pd.read_csv(snakemake.input.costs),
    pd.read_csv(snakemake.input.crossover),
    params.ranks,
    params.dtype,
    params.algorithms,
    params.fabrics,
)
style.save(plot, *snakemake.output)
