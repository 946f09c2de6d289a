"""The headline figure: modeled time against message size at one N, per fabric."""

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
)
style.save(plot, *snakemake.output)
