"""Replayed and closed-form time of every run on every fabric, the winners, the crossovers,
and where the replay departs from the closed form on flat fabrics."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.model import cost
from collectives.run.files import write_csv
from collectives.study.question import SEED_PAIR

measurements = pd.read_csv(snakemake.input.measurements)
fabrics = pd.read_csv(snakemake.input.fabrics)
replayed = pd.concat(map(pd.read_csv, snakemake.input.replays), ignore_index=True)
costs = cost.modeled_costs(measurements, fabrics, snakemake.params.algorithms, replayed)
write_csv(snakemake.output.costs, costs)
write_csv(snakemake.output.crossover, cost.crossover_table(measurements, fabrics, costs, SEED_PAIR))
write_csv(snakemake.output.replay_check, cost.replay_vs_closed_form(costs, fabrics))
