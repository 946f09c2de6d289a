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
