"""Each algorithm's cost shape fitted from the measured counts, beside its textbook form."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives import cost
from collectives.records import write_text

shape = cost.cost_shape(pd.read_csv(snakemake.input[0]))
write_text(snakemake.output[0], cost.cost_model_markdown(shape))
