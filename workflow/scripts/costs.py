"""Modeled time of every run on every fabric, the winners, and the ring/RD crossovers."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives import cost
from collectives.records import write_csv

measurements = pd.read_csv(snakemake.input.measurements)
fabrics = pd.read_csv(snakemake.input.fabrics)
costs = cost.modeled_costs(measurements, fabrics, snakemake.params.algorithms)
write_csv(snakemake.output.costs, costs)
write_csv(snakemake.output.crossover, cost.crossover_table(measurements, fabrics, costs))
