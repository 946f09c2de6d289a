"""Each algorithm's cost shape fitted from the measured counts, beside its textbook form."""

import sys

sys.stderr = open(snakemake.log[0], "w")

import pandas as pd

from collectives.model import cost
from collectives.run.files import write_text
from collectives.study import markdown

shape = cost.cost_shape(pd.read_csv(snakemake.input[0]))
write_text(snakemake.output[0], markdown.cost_model_markdown(shape))
