"""Measured time against message size, with the library all-reduces, per transport and N."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.study.figures import style, wallclock

plot = wallclock.draw(pd.read_csv(snakemake.input[0]))
style.save(plot, *snakemake.output)
