"""The phase map: the cheapest algorithm over (message size, N), per fabric."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study.figures import phase, style

params = snakemake.params
plot = phase.draw(pd.read_csv(snakemake.input[0]), params.dtype, params.algorithms)
style.save(plot, *snakemake.output)
