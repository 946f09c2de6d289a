# The config, loaded and checked before any job (YAML syntax, schema, then meaning: every
# problem one line `config error: key: reason`, collectives.study.config), and what expands
# it into files and job options: TARGETS (collectives.study.targets), whose methods the
# rules call, and the few input functions that need Snakemake's own report() and ancient().


import json
import math
import sys
from pathlib import Path

from snakemake.utils import validate

try:
    from collectives.study import jobs, paths, targets, tuning
    from collectives.study.config import (
        ConfigError,
        check,
        pingpong_transport,
        read_yaml,
        validate_schema,
    )
    from collectives.study.jobs import PINGPONG_RANKS
    from collectives.study.tuning import FORCED
except ImportError as exc:
    sys.exit(
        f"the collectives package is not installed here ({exc}); run: pip install -e '.[pipeline]'"
    )


def syntax_checked(configfile):
    """The config file, once its YAML parses (a syntax error: one line naming its file and
    line, which Snakemake's own message does not)."""
    try:
        if Path(configfile).exists():  # absent: --configfile gives the config
            read_yaml(configfile)
    except ConfigError as exc:
        sys.exit(f"config error: {exc}")
    return configfile


configfile: syntax_checked("config/config.yaml")


try:
    validate_schema(config, workflow.source_path("../schemas/config.schema.yaml"))
    # passes now; fills in the defaults
    validate(config, "../schemas/config.schema.yaml")
    # files as the config names them, from the directory Snakemake runs in
    PLAN = check(config, Path("."))
except ConfigError as exc:
    sys.exit(f"config error: {exc}")
for warning in PLAN.warnings:  # usable, but worth a look: one line each
    print(f"warning: {warning}", file=sys.stderr)
WALLCLOCK = PLAN.wallclock
RUNTIME_MINUTES = math.ceil(config["timeout"] / 60)  # a launch's walltime, as the run's
TARGETS = targets.Targets(PLAN, config, RUNTIME_MINUTES)


wildcard_constraints:
    **paths.WILDCARDS,
    setting=tuning.setting_pattern(),


def figure_outputs(name, category):
    """A figure's PNG (in the report, with its caption), PDF and the data it plots (CSV)."""
    files = targets.figure_paths(name)
    return files | {
        "png": report(files["png"], caption=f"../report/{name}.rst", category=category)
    }


def selection_file(library, setting):
    """A library's model or clock selection (the model's rewritten, unchanged, whenever a
    fabric is added: ancient)."""
    files = TARGETS.selection_files(library, setting)
    return [ancient(p) for p in files] if setting == "model" else files


def tuning_selection(wildcards):
    """The selection a tuned run or probe loads; none for the default and forced runs."""
    if wildcards.setting in ("model", "clock"):
        return selection_file(wildcards.library, wildcards.setting)
    return []


def compared_run(setting):
    """The output of a compared (default, model or clock) run, for any library and N."""
    return paths.TUNING.format(library="{library}", setting=setting, ranks="{ranks}")
