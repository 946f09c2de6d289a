"""On a two-level fabric: replayed times against the flat model, and where the winner moves."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study import plotting

params = snakemake.params
figure = plotting.structure_figure(
    pd.read_csv(snakemake.input[0]), params.structure, params.dtype, params.algorithms
)
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
