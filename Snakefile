# All-reduce three ways: the crossover study, regenerated from config/config.yaml.
#
#   snakemake --cores 8                          # every table and figure under results/
#   snakemake --report results/report.html       # the self-contained report
#
# One rule file per stage: measure -> aggregate -> fabrics -> cost -> figures, the timed
# runs and their validation (wallclock), the GPU systems against their nccl-tests logs
# (gpu), the MPI libraries tuned by our selections (libraries), and the report with the
# pages' claims checked. common.smk checks the config and makes TARGETS, whose methods the
# rules' inputs and params call (collectives.study.targets); resources.smk the threads,
# memory, MPI and cluster resources.
# Where every file goes is collectives.study.paths.


from snakemake.utils import min_version

min_version("9.0")


include: "workflow/rules/common.smk"  # loads config/config.yaml and checks it
include: "workflow/rules/resources.smk"
include: "workflow/rules/measure.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/fabrics.smk"
include: "workflow/rules/cost.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/wallclock.smk"
include: "workflow/rules/gpu.smk"
include: "workflow/rules/libraries.smk"
include: "workflow/rules/report.smk"


# The targets: they run nothing, on the node that runs Snakemake. Every other rule names its
# SLURM group or is a timing job that profiles/slurm gives a node of its own
# (profiles/slurm/README.md, "Fewer submissions").
localrules:
    all,
    runs,


rule all:
    default_target: True
    input:
        TARGETS.measured_files(),
        TARGETS.study_outputs(FIGURE_SECTIONS),
        TARGETS.wallclock_outputs(FIGURE_SECTIONS),
        TARGETS.gpu_outputs(FIGURE_SECTIONS),
        [paths.table(name) for name in paths.TABLES["report"]],
    message:
        "all: every table and figure"


rule runs:
    # every record and trace, and nothing else: `snakemake --cores 8 runs`
    input:
        TARGETS.measured_files(),
    message:
        "runs: every record and trace"
