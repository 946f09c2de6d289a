"""Bytes through every rank, per algorithm, at one (N, M)."""

import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives import plotting, tables

figure = plotting.hotspot_figure(tables.load_records(snakemake.input))
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
