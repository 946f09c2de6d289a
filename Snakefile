# All-reduce three ways: the crossover study, regenerated from config/config.yaml.
#
#   snakemake --cores 8                          # every table and figure under results/
#   snakemake --report results/report.html       # the self-contained report
#
# Stages, one rule file each: measure -> aggregate -> fabrics -> cost -> figures -> report.


import os
import sys
from pathlib import Path

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")

try:
    from collectives.config import ConfigError, check
except ImportError as exc:
    sys.exit(
        f"the collectives package is not installed here ({exc}); run: pip install -e '.[pipeline]'"
    )
try:
    PLAN = check(config, Path.cwd())
except ConfigError as exc:
    sys.exit(f"config error: {exc}")


envvars:
    "PATH",


# Jobs find the `collectives` command next to the Python running Snakemake (a venv need
# not be activated); with --sdm conda the rule's environment comes first instead.
os.environ["PATH"] = (
    f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
)
RESULTS = "results"
FIGURES = [
    "crossover",
    "phase",
    "counts",
    "hotspot",
    "fabric_fits",
    "structure",
    "workloads",
]


include: "workflow/rules/common.smk"
include: "workflow/rules/measure.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/fabrics.smk"
include: "workflow/rules/cost.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        f"{RESULTS}/tables/measurements.csv",
        f"{RESULTS}/tables/seed_check.md",
        f"{RESULTS}/tables/fabrics.csv",
        f"{RESULTS}/tables/costs.csv",
        f"{RESULTS}/tables/crossover.csv",
        f"{RESULTS}/tables/cost_model.md",
        f"{RESULTS}/tables/workloads.csv",
        f"{RESULTS}/tables/selection.csv",
        f"{RESULTS}/tables/selection_vs_libraries.md",
        expand(f"{RESULTS}/selection/{{fabric}}.json", fabric=PLAN.fabrics),
        expand(
            f"{RESULTS}/figures/{{figure}}.{{ext}}", figure=FIGURES, ext=["png", "pdf"]
        ),
        wallclock_outputs(),
