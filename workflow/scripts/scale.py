"""What scale changes: the cheapest all-reduce and the libraries' picks by N, and a summary."""

import json
import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.run.files import write_csv
from collectives.study.scale import scale_summary, scale_table, workload_sizes

params = snakemake.params
choice = json.loads(params.scale)
fabrics = pd.read_csv(snakemake.input.fabrics).set_index("fabric")
network = fabrics.loc[choice["fabric"]]
named = workload_sizes(json.loads(params.workloads))
sizes = {nbytes: named.get(nbytes, "") for nbytes in choice["message_bytes"]}
system = json.loads(params.system)
table = scale_table(
    {"fabric": choice["fabric"], "alpha_s": network.alpha_s,
     "beta_s_per_byte": network.beta_s_per_byte, "library": choice["library"]},
    (choice["system"], system) if system else None,
    list(params.algorithms),
    choice["ranks"],
    sizes,
)  # fmt: skip
write_csv(snakemake.output.table, table)
write_csv(snakemake.output.summary, scale_summary(table))
