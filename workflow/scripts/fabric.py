"""One fabric's link classes: as given, or fitted from its measurement files."""

import json
import sys
from pathlib import Path

import numpy as np

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_json
from collectives.study import fabrics

name, entry = snakemake.wildcards.fabric, json.loads(snakemake.params.entry)
measured = fabrics.kind_of(entry) == "pingpong"
pingpong, reductions = (Path(p) for p in snakemake.input) if measured else (None, None)
fabric = fabrics.build(name, entry, Path("."), pingpong, reductions)
if measured:  # measured here, so fitted here (a file's fit is checked with the config)
    link, bound = fabric.link, entry.get("max_fit_error", fabrics.MAX_FIT_ERROR)
    points = fabrics.Points(*(np.asarray(link.measurements[k]) for k in ("bytes", "seconds")))
    warning = fabrics.fit_warning(f"fabrics.{name}", points, link.alpha, link.beta, bound)
    if warning:
        print(f"warning: {warning}", file=sys.__stderr__, flush=True)
write_json(snakemake.output[0], fabric.as_dict())
print(json.dumps(fabrics.fabric_row(fabric), indent=2), file=sys.stderr)
