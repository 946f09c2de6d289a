"""Measured time against message size, with the library all-reduces, per transport and N."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study import plotting

figure = plotting.wallclock_figure(pd.read_csv(snakemake.input[0]))
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
