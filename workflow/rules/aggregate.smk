# Stage 2, aggregate: every record into one table, and the seed's table checked; every
# record and trace is checked here first, so a bad one stops the run before any replay.


rule aggregate:
    input:
        records=TARGETS.records(),
        traces=TARGETS.traces(),
    output:
        measurements=paths.table("measurements.csv"),
        seed_check=paths.table("seed_check.md"),
    log:
        paths.log("aggregate"),
    benchmark:
        paths.benchmark("aggregate")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    group:
        "analysis"
    conda:
        ENV
    message:
        "aggregate: every record and trace into measurements.csv"
    script:
        "../scripts/aggregate.py"
