"""One fabric's alpha and beta: as given, or fitted from its measurement file."""

import json
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")

from collectives import fabrics
from collectives.records import write_json

name, entry = snakemake.wildcards.fabric, json.loads(snakemake.params.entry)
if fabrics.kind_of(entry) == "given":
    fabric = fabrics.given_fabric(name, entry)
else:
    fmt = entry.get("format") if "measurements" in entry else "csv"
    points = fabrics.read_measurements(Path(snakemake.input[0]), fmt, entry.get("table", 1))
    fabric = fabrics.measured_fabric(name, entry, points)
write_json(snakemake.output[0], fabric.as_dict())
print(json.dumps(fabric.row(), indent=2), file=sys.stderr)
