"""On a two-level fabric: replayed times against the flat model, and where the winner moves."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study.figures import structure, style

params = snakemake.params
plot = structure.draw(
    pd.read_csv(snakemake.input[0]), params.structure, params.dtype, params.algorithms
)
style.save(plot, *snakemake.output)
