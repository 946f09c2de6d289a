"""Each measured fabric's points with its fitted alpha + beta * bytes."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

from collectives.study import plotting

fabrics = [json.loads(Path(path).read_text()) for path in snakemake.input]
figure = plotting.fabric_fits_figure(fabrics)
plotting.save_figure(figure, snakemake.output.png, snakemake.output.pdf)
