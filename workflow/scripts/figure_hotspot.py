"""Bytes through every rank, per algorithm, at one (N, M)."""

import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives.study import aggregate, plotting

figure = plotting.hotspot_figure(aggregate.load_records(snakemake.input))
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
