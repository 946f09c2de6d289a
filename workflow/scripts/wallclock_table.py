"""Every timed run into one table, with each algorithm's time relative to the libraries'."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_csv
from collectives.study.aggregate import wallclock_table

documents = {path: json.loads(Path(path).read_text()) for path in snakemake.input.runs}
peers = {}  # another MPI library's default runs: its MPI_Allreduce, named after it
for path in snakemake.input.peers:  # results/tuning/{library}/default/N{ranks}.json
    documents[path] = json.loads(Path(path).read_text())
    peers[path] = f"MPI_Allreduce-{Path(path).parts[-3]}"
write_csv(snakemake.output[0], wallclock_table(documents, peers))
