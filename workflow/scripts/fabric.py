"""One fabric's link classes: as given, or fitted from its measurement files."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

from collectives.run.files import write_json
from collectives.study import fabrics

name, entry = snakemake.wildcards.fabric, json.loads(snakemake.params.entry)
measured = fabrics.kind_of(entry) == "pingpong"
pingpong, reductions = (Path(p) for p in snakemake.input) if measured else (None, None)
fabric = fabrics.build(name, entry, Path("."), pingpong, reductions)
warning = fabrics.run_fit_warning(name, entry, fabric) if measured else None
if warning:  # a file's fit was checked with the config; this one was fitted here
    print(f"warning: {warning}", file=sys.__stderr__, flush=True)
write_json(snakemake.output[0], fabric.as_dict())
print(json.dumps(fabrics.fabric_row(fabric), indent=2), file=sys.stderr)
