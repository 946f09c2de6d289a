"""Each measured fabric's points with its fitted alpha + beta * bytes."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

from collectives.study.figures import fabric_fits, style

fabrics = [json.loads(Path(path).read_text()) for path in snakemake.input]
plot = fabric_fits.draw(fabrics)
style.save(plot, *snakemake.output)
