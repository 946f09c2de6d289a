# Stage 6, report: `snakemake --report results/report.html` gathers every figure marked
# with report() (captions in workflow/report/) under this description, and where the
# pipeline's time went (every job's benchmark file, summed per rule).


report: "../report/workflow.rst"


rule pipeline_timing:
    input:
        TARGETS.study_outputs(FIGURE_SECTIONS),
        TARGETS.wallclock_outputs(FIGURE_SECTIONS),
        TARGETS.gpu_outputs(FIGURE_SECTIONS),
    output:
        table=report(
            paths.table("pipeline_timing.csv"),
            caption="../report/pipeline_timing.rst",
            category="Pipeline",
        ),
    log:
        paths.log("pipeline_timing"),
    benchmark:
        paths.benchmark("pipeline_timing")
    group:
        "results"
    conda:
        ENV
    message:
        "pipeline_timing: where the pipeline's time went"
    script:
        "../scripts/pipeline_timing.py"


rule claims:
    # every marked number of the README and docs/ recomputed from this run's tables
    input:
        tables=TARGETS.claim_tables(FIGURE_SECTIONS),
        pages=targets.claim_pages(),
    output:
        report(
            paths.table("claims.csv"),
            caption="../report/claims.rst",
            category="Pipeline",
        ),
    log:
        paths.log("claims"),
    benchmark:
        paths.benchmark("claims")
    group:
        "results"
    conda:
        ENV
    message:
        "claims: the pages' numbers against this run"
    script:
        "../scripts/claims.py"
