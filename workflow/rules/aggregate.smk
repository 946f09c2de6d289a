# Stage 2, aggregate: every record into one table; the seed's table checked; every timed run
# into another.


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


rule wallclock_table:
    input:
        wallclock_runs(),
    output:
        f"{RESULTS}/tables/wallclock.csv",
    log:
        f"{RESULTS}/logs/wallclock_table.log",
    priority: 1
    conda:
        ENV
    script:
        "../scripts/wallclock_table.py"
