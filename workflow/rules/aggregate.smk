# Stage 2, aggregate: every record into one table; the seed's table checked.


rule aggregate:
    input:
        all_runs(),
    output:
        measurements=f"{RESULTS}/tables/measurements.csv",
        seed_check=f"{RESULTS}/tables/seed_check.md",
    log:
        f"{RESULTS}/logs/aggregate.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    script:
        "../scripts/aggregate.py"
