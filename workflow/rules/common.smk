# The config, loaded and checked before any job (YAML syntax, schema, then meaning: every
# problem one line `config error: key: reason`, collectives.study.config), and the input
# functions that expand it into files (collectives.study.paths).


import functools
import json
import sys
from pathlib import Path

from snakemake.utils import validate

try:
    from collectives.study import paths
    from collectives.study.claims import tables_read as claimed_tables
    from collectives.study.config import (
        ConfigError,
        check,
        library_fabric,
        pingpong_transport,
        read_yaml,
        validate_schema,
    )
    from collectives.study.fabrics import measured_parts
    from collectives.study.grid import expand_axis
    from collectives.study.jobs import PINGPONG_RANKS
    from collectives.study import jobs, tuning
    from collectives.study.tuning import FORCED, SETTINGS
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
# The algorithms at their default parameters (no node size named): what a cluster's flat
# fit can price.
FLAT_ALGORITHMS = PLAN.flat_algorithms
STUDY_TABLES = paths.TABLES["study"]
WALLCLOCK_TABLES = paths.TABLES["wallclock"]
TUNING_TABLES = paths.TABLES["tuning"]
GPU_TABLES = paths.TABLES["gpu"]


wildcard_constraints:
    **paths.WILDCARDS,
    setting=tuning.setting_pattern(),


def grid_points():
    """Every (dtype, variant, N, M) of the grid, in a stable order (hierarchical variants
    only where their node size divides N)."""
    return [
        (dtype, variant.name, ranks, elements)
        for dtype in PLAN.dtypes
        for variant in PLAN.variants
        for ranks in PLAN.ranks
        if variant.runs_at(ranks)
        for elements in PLAN.elements
    ]


def all_runs():
    """Every record of the grid."""
    return [paths.record(*point) for point in grid_points()]


def all_traces():
    """Every message trace of the grid, in the order of all_runs()."""
    return [paths.trace(*point) for point in grid_points()]


def measured_files():
    """Every record and trace of the grid: targets, so that a deleted one is measured again
    and all that reads it reruns."""
    return all_runs() + all_traces()


def runs_at(ranks, elements, dtype):
    """The records of every variant at one grid point."""
    return [
        paths.record(dtype, variant.name, ranks, elements)
        for variant in PLAN.variants
        if variant.runs_at(ranks)
    ]


def variant_arguments(wildcards):
    """The `collectives measure` options of a variant, e.g. hierarchical-G8."""
    return next(v for v in PLAN.variants if v.name == wildcards.algorithm).arguments()


def fabric_files(kinds=None):
    """Every fabric's link classes (only those of the given kinds)."""
    return [
        paths.FABRIC.format(fabric=fabric)
        for fabric, kind in PLAN.fabrics.items()
        if kinds is None or kind in kinds
    ]


def replay_tables():
    """Every run replayed on each fabric."""
    return [paths.REPLAY.format(fabric=fabric) for fabric in PLAN.fabrics]


def fabric_config(wildcards):
    """Only this fabric's entry, as canonical JSON: adding a fabric or reordering keys
    changes no other job's params (Snakemake reruns a job whose params change)."""
    return json.dumps(config["fabrics"][wildcards.fabric], sort_keys=True)


def fabric_measurements(wildcards):
    """The point-to-point files a fabric is fitted from (none for given link classes)."""
    if PLAN.fabrics[wildcards.fabric] == "pingpong":
        return [
            paths.PINGPONG.format(fabric=wildcards.fabric),
            paths.REDUCTIONS.format(fabric=wildcards.fabric),
        ]
    entry = config["fabrics"][wildcards.fabric]
    return [part["measurements"] for part in measured_parts(entry)]


def pingpong_settings(fabric):
    """A ping-pong fabric's `pingpong` settings: sizes and iterations."""
    return config["fabrics"][fabric]["pingpong"]


def pingpong_sizes(wildcards):
    """The message sizes of a ping-pong, or of an exchange (its transport's ping-pong's),
    comma-separated."""
    sizes = pingpong_settings(calibrating_fabric(wildcards))["sizes"]
    return ",".join(map(str, expand_axis(sizes)))


def pingpong_iterations(wildcards):
    """Timed repeats per size of a ping-pong, or of an exchange (as its ping-pong's)."""
    return pingpong_settings(calibrating_fabric(wildcards))["iterations"]


def calibration_options(wildcards):
    """`collectives repeat`'s options for a ping-pong or exchange (study.jobs)."""
    sizes = len(pingpong_sizes(wildcards).split(","))
    ranks = timing_ranks(wildcards.get("ranks"))
    return jobs.calibration_options(
        pingpong_settings(calibrating_fabric(wildcards)), job_share(sizes, ranks)
    )


def bench_points(transport=None, library=None, setting=None):
    """A bench's timed points on `transport`, or a library run's (study.jobs)."""
    if transport:
        return jobs.bench_points(WALLCLOCK, transport)
    return jobs.library_points(PLAN, library, setting)


def bench_options(wildcards):
    """`collectives repeat`'s options for a bench, a forced library run, or a library's
    compared runs (its default, model and clock, together; study.jobs)."""
    if "transport" in wildcards.keys():
        points = bench_points(wildcards.transport)
    else:
        settings = [wildcards.setting] if "setting" in wildcards.keys() else SETTINGS
        points = sum(bench_points(None, wildcards.library, s) for s in settings)
    return jobs.bench_options(WALLCLOCK, job_share(points, int(wildcards.ranks)))


def bench_protocol():
    """The timing protocol's options of `collectives bench` (study.jobs)."""
    return jobs.bench_protocol(WALLCLOCK)


@functools.cache
def pingpongs():
    """Every ping-pong fabric's `pingpong` settings, by name."""
    return {
        f: pingpong_settings(f)
        for f, kind in PLAN.fabrics.items()
        if kind == "pingpong"
    }


def job_share(points, ranks):
    """A timing job's seconds of wallclock.budget (study.jobs.budget_share)."""
    return jobs.budget_share(PLAN, pingpongs(), points, ranks)


def pingpong_library(wildcards):
    """The descriptor of the MPI library a ping-pong measures the own point-to-point of,
    if it names one."""
    library = pingpong_settings(wildcards.fabric).get("library")
    return [paths.library(library)] if library else []


def calibrating_fabric(wildcards):
    """The ping-pong fabric a timing job's settings come from: its own, or its transport's."""
    if "fabric" in wildcards.keys():
        return wildcards.fabric
    return WALLCLOCK.fabrics[wildcards.transport]


def figure_outputs(name, category):
    """A figure's PNG (in the report, with its caption), PDF and the data it plots (CSV)."""
    return {
        "png": report(
            paths.FIGURE.format(figure=name, ext="png"),
            caption=f"../report/{name}.rst",
            category=category,
        ),
        "pdf": paths.FIGURE.format(figure=name, ext="pdf"),
        "csv": paths.FIGURE.format(figure=name, ext="csv"),
    }


def section_figures(section):
    """The figures of one section of the table of figures (figures.smk)."""
    return [name for name, row in FIGURES.items() if row["section"] == section]


def figures(names):
    return [
        paths.FIGURE.format(figure=f, ext=ext)
        for f in names
        for ext in ("png", "pdf", "csv")
    ]


def selection_keys():
    """Every (fabric, library) whose selection is exported: sorted, so that reordering the
    config's fabrics changes no job's params."""
    return sorted(
        (fabric, library) for fabric in PLAN.fabrics for library in PLAN.libraries
    )


def model_selections():
    """Each fabric's selection exported for each MPI library: every file of each."""
    return [
        path
        for fabric, library in selection_keys()
        for path in paths.selection_files(fabric, library)
    ]


def study_outputs():
    """Every table and figure of the study, and each fabric's selection files."""
    return (
        [paths.table(name) for name in STUDY_TABLES]
        + model_selections()
        + figures(section_figures("study"))
    )


def wallclock_runs():
    """Every timed run's document: one per transport and N."""
    if WALLCLOCK is None:
        return []
    return [
        paths.WALLCLOCK.format(transport=transport, ranks=ranks)
        for transport in WALLCLOCK.transports
        for ranks in WALLCLOCK.ranks
    ]


def exchange_keys():
    """Every timed (transport, N): each has an exchange benchmark."""
    return jobs.exchange_keys(WALLCLOCK)


def exchange_runs():
    """The exchange benchmark of every timed (transport, N): the resources layer's links."""
    return [paths.EXCHANGE.format(transport=t, ranks=n) for t, n in exchange_keys()]


def cluster_fabrics(wildcards):
    """The fabrics (JSON) of one cluster's links between and inside its nodes."""
    entry = WALLCLOCK.clusters[wildcards.cluster]
    return sorted(
        {paths.FABRIC.format(fabric=entry[key]) for key in ("fabric", "intra_fabric")}
    )


def cluster_logs(wildcards):
    """One cluster's osu_allreduce log, and its single-node log where it has one."""
    entry = WALLCLOCK.clusters[wildcards.cluster]
    return [log["allreduce"] for log in (entry, entry.get("node")) if log]


def bench_peers(wildcards):
    """The library all-reduces a bench job times beside ours: the config's, nothing else."""
    return ",".join(WALLCLOCK.peers_for(wildcards.transport))


def gpu_outputs():
    """The GPU systems' validation tables, if the config has systems."""
    if not PLAN.gpu_systems:
        return []
    return [paths.table(name) for name in GPU_TABLES] + figures(section_figures("gpu"))


def gpu_fabrics(wildcards):
    """The link-level fabrics a GPU system is priced on."""
    return system_fabrics(wildcards.system)


def system_fabrics(system):
    """The link-level fabric files of the GPU system named `system`."""
    entry = PLAN.gpu_systems[system]
    return [
        paths.FABRIC.format(fabric=entry[key])
        for key in ("intra_fabric", "inter_fabric")
    ]


def claim_tables():
    """The tables of this run that the pages' claims read (collectives.study.claims)."""
    made = set(study_outputs() + wallclock_outputs() + gpu_outputs())
    return [
        t for t in (f"{paths.RESULTS}/{name}" for name in claimed_tables()) if t in made
    ]


def claim_pages():
    """The pages whose marked numbers are checked (claims.csv): the README and docs/."""
    return sorted(
        str(p) for p in [Path("README.md"), *Path("docs").glob("*.md")] if p.exists()
    )


def wallclock_outputs():
    """The tables and figures of the wallclock section, if the config has one, and the
    libraries' tuning."""
    if WALLCLOCK is None:
        return []
    tuning = []
    if PLAN.libraries:
        tuning = [paths.table(t) for t in TUNING_TABLES] + figures(
            section_figures("tuning")
        )
    return (
        [paths.table(name) for name in WALLCLOCK_TABLES]
        + figures(section_figures("wallclock"))
        + tuning
    )


def library_options(wildcards):
    """`collectives library` options of the job's library (study.jobs)."""
    entry = PLAN.libraries[wildcards.library]
    return jobs.library_options(entry, paths.library(wildcards.library))


def forced_algorithms(library):
    """The clock's candidates for a library (study.tuning)."""
    return tuning.forced_algorithms(PLAN.algorithms, list(PLAN.libraries), library)


def tuning_keys(settings=None):
    """Every timed (library, setting, N) of the tuning (study.jobs)."""
    return jobs.library_tuning_keys(PLAN, settings)


def tuning_runs(settings=None, pattern=paths.TUNING):
    """The files of every timed (library, setting, N): the runs, or with paths.PROBE their
    probes."""
    return [
        pattern.format(library=l, setting=s, ranks=n)
        for l, s, n in tuning_keys(settings)
    ]


def library_peers():
    """Every MPI library's MPI_Allreduce at its default, each in launches of its own (MPICH's
    also runs inside the mpi transport's jobs)."""
    return tuning_runs(["default"])


def tuning_probes():
    """The probes of the tuned runs: which algorithm each file made the library run."""
    return tuning_runs(["model", "clock"], paths.PROBE)


def tuning_selection(wildcards):
    """The selection file a tuned run or probe loads: the model's for the fabric its library
    was calibrated on, or the clock's; none for the default and forced runs."""
    if wildcards.setting in ("model", "clock"):
        return selection_file(wildcards.library, wildcards.setting)
    return []


def selection_file(library, setting):
    """A library's model or clock selection: its files, the one it loads first (the
    model's rewritten, unchanged, whenever a fabric is added: ancient)."""
    if setting == "model":
        return [
            ancient(p) for p in paths.selection_files(model_fabric(library), library)
        ]
    return paths.selection_files(paths.CLOCK, library)


def compared_run(setting):
    """The output of a compared (default, model or clock) run, for any library and N."""
    return paths.TUNING.format(library="{library}", setting=setting, ranks="{ranks}")


def model_fabric(library):
    """The fabric a library's model selection comes from: its own ping-pong's, else the
    mpi transport's."""
    return library_fabric(config, library, WALLCLOCK.fabrics["mpi"])


def switched(wildcards):
    """`--switch` of the job's run or probe (switch_option)."""
    return switch_option(wildcards.library, wildcards.setting)


def switch_option(library, setting):
    """`--switch` of a FORCED run or probe (study.tuning)."""
    return tuning.switch_option(PLAN.algorithms, list(PLAN.libraries), library, setting)


def tuning_setting(wildcards, input):
    """`collectives mpiexec` options of the job's setting."""
    return tuning.setting_options(wildcards.setting, input.get("selection"))


def library_command(wildcards, input, setting):
    """One library run's measurement (study.jobs.library_command)."""
    return jobs.library_command(
        PLAN,
        input.library,
        wildcards.library,
        setting,
        int(wildcards.ranks),
        input.get(setting),
        config["seed"],
        RUNTIME_MINUTES,
    )


def forced_command(wildcards, input):
    """A forced run's measurement (library_command)."""
    return library_command(wildcards, input, wildcards.setting)


def compared_commands(wildcards, input):
    """The default, model and clock runs' measurements, `::` between them: launched in
    turns by `collectives repeat`."""
    return " :: ".join(library_command(wildcards, input, s) for s in SETTINGS)
