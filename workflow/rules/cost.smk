# Stage 4, cost: replayed and closed-form times, winners, crossovers, the fitted cost shape,
# the workloads priced, what scale changes and the selection tables.


rule costs:
    input:
        measurements=paths.table("measurements.csv"),
        fabrics=paths.table("fabrics.csv"),
        replays=TARGETS.replay_tables(),
    output:
        costs=paths.table("costs.csv"),
        crossover=paths.table("crossover.csv"),
        replay_check=paths.table("replay_vs_closed_form.csv"),
    log:
        paths.log("costs"),
    benchmark:
        paths.benchmark("costs")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    group:
        "analysis"
    conda:
        ENV
    params:
        algorithms=PLAN.algorithms,
    message:
        "costs: times, winners and crossovers on every fabric"
    script:
        "../scripts/costs.py"


rule cost_model:
    input:
        paths.table("measurements.csv"),
    output:
        paths.table("cost_model.md"),
    log:
        paths.log("cost_model"),
    benchmark:
        paths.benchmark("cost_model")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    group:
        "analysis"
    conda:
        ENV
    message:
        "cost_model: the cost shape fitted to the measured counts"
    script:
        "../scripts/cost_model.py"


rule workloads:
    input:
        paths.table("costs.csv"),
    output:
        paths.table("workloads.csv"),
    log:
        paths.log("workloads"),
    benchmark:
        paths.benchmark("workloads")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    group:
        "analysis"
    conda:
        ENV
    params:
        workloads=json.dumps(config.get("workloads", {})),
        systems=json.dumps(PLAN.gpu_systems, sort_keys=True),
        dtype=PLAN.dtype,
        algorithms=PLAN.algorithms,
    message:
        "workloads: the training workloads priced"
    script:
        "../scripts/workloads.py"


rule scale:
    input:
        fabrics=paths.table("fabrics.csv"),
    output:
        table=paths.table("scale.csv"),
        summary=paths.table("scale_summary.csv"),
    log:
        paths.log("scale"),
    benchmark:
        paths.benchmark("scale")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    group:
        "analysis"
    conda:
        ENV
    params:
        scale=json.dumps(PLAN.figures["scale"], sort_keys=True),
        system=json.dumps(
            PLAN.gpu_systems.get(PLAN.figures["scale"]["system"]), sort_keys=True
        ),
        workloads=json.dumps(config.get("workloads", {}), sort_keys=True),
        algorithms=list(dict.fromkeys(variant.algorithm for variant in PLAN.variants)),
    message:
        "scale: the cheapest all-reduce by N up to training scale"
    script:
        "../scripts/scale.py"


rule selection:
    input:
        costs=paths.table("costs.csv"),
        fabrics=paths.table("fabrics.csv"),
        libraries=[paths.library(name) for name in PLAN.libraries],
    output:
        table=paths.table("selection.csv"),
        libraries=paths.table("selection_vs_libraries.md"),
        exports=TARGETS.model_selections(),
    log:
        paths.log("selection"),
    benchmark:
        paths.benchmark("selection")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    group:
        "analysis"
    conda:
        ENV
    params:
        dtype=PLAN.dtype,
        libraries=list(PLAN.libraries),
        exports=TARGETS.selection_keys(),  # (fabric, library) of each selection in output.exports
    message:
        "selection: the model's selection for each fabric and library"
    script:
        "../scripts/selection.py"
