# Stage 4, cost: replayed and closed-form times, winners, crossovers, the fitted cost shape.


rule costs:
    input:
        measurements=f"{RESULTS}/tables/measurements.csv",
        fabrics=f"{RESULTS}/tables/fabrics.csv",
        replays=expand(f"{RESULTS}/replay/{{fabric}}.csv", fabric=PLAN.fabrics),
    output:
        costs=f"{RESULTS}/tables/costs.csv",
        crossover=f"{RESULTS}/tables/crossover.csv",
        replay_check=f"{RESULTS}/tables/replay_vs_closed_form.csv",
    log:
        f"{RESULTS}/logs/costs.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        algorithms=PLAN.algorithms,
    script:
        "../scripts/costs.py"


rule cost_model:
    input:
        f"{RESULTS}/tables/measurements.csv",
    output:
        f"{RESULTS}/tables/cost_model.md",
    log:
        f"{RESULTS}/logs/cost_model.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    script:
        "../scripts/cost_model.py"


rule workloads:
    input:
        f"{RESULTS}/tables/costs.csv",
    output:
        f"{RESULTS}/tables/workloads.csv",
    log:
        f"{RESULTS}/logs/workloads.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        workloads=json.dumps(config.get("workloads", {})),
        dtype=config["figures"]["dtype"],
        algorithms=PLAN.algorithms,
    script:
        "../scripts/workloads.py"


rule selection:
    input:
        costs=f"{RESULTS}/tables/costs.csv",
        fabrics=f"{RESULTS}/tables/fabrics.csv",
    output:
        table=f"{RESULTS}/tables/selection.csv",
        libraries=f"{RESULTS}/tables/selection_vs_libraries.md",
        mpich=expand(f"{RESULTS}/selection/{{fabric}}.json", fabric=PLAN.fabrics),
    log:
        f"{RESULTS}/logs/selection.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        dtype=config["figures"]["dtype"],
    script:
        "../scripts/selection.py"


rule validation_clusters:
    input:
        fabrics=f"{RESULTS}/tables/fabrics.csv",
        allreduce=(
            [entry["allreduce"] for entry in WALLCLOCK.clusters.values()]
            if WALLCLOCK
            else []
        ),
    output:
        f"{RESULTS}/tables/validation_clusters.csv",
    log:
        f"{RESULTS}/logs/validation_clusters.log",
    priority: 1
    conda:
        ENV
    params:
        clusters=json.dumps(WALLCLOCK.clusters if WALLCLOCK else {}, sort_keys=True),
        algorithms=FLAT_ALGORITHMS,
    script:
        "../scripts/validation_clusters.py"


rule validation:
    input:
        wallclock=f"{RESULTS}/tables/wallclock.csv",
        fabrics=f"{RESULTS}/tables/fabrics.csv",
        replays=(
            [f"{RESULTS}/replay/{f}.csv" for f in WALLCLOCK.fabrics.values()]
            if WALLCLOCK
            else []
        ),
        clusters=f"{RESULTS}/tables/validation_clusters.csv",
    output:
        validation=f"{RESULTS}/tables/validation.csv",
        crossover=f"{RESULTS}/tables/validation_crossover.csv",
        summary=f"{RESULTS}/tables/validation_summary.csv",
    log:
        f"{RESULTS}/logs/validation.log",
    priority: 1
    conda:
        ENV
    params:
        calibration=json.dumps(WALLCLOCK.fabrics if WALLCLOCK else {}, sort_keys=True),
    script:
        "../scripts/validation.py"
