"""Bytes through every rank, per algorithm, at one (N, M)."""

import sys

sys.stderr = open(snakemake.log[0], "w")

from collectives.study import aggregate
from collectives.study.figures import hotspot, style

plot = hotspot.draw(aggregate.load_records(snakemake.input.records))
style.save(plot, *snakemake.output)
