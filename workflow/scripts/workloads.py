"""Every workload's TP and DP all-reduces, priced on their fabrics."""

import json
import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv
from collectives.study.workloads import Workload, workloads_table

params = snakemake.params
workloads = [Workload.from_config(n, e) for n, e in json.loads(params.workloads).items()]
costs = pd.read_csv(snakemake.input[0])
systems = json.loads(params.systems)
table = workloads_table(workloads, costs, params.dtype, params.algorithms, systems)
write_csv(snakemake.output[0], table)
