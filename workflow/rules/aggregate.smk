# Stage 2, aggregate: every record into one table; the seed's table checked.


rule aggregate:
    input:
        all_runs(),
    output:
        measurements=f"{RESULTS}/tables/measurements.csv",
        seed_check=f"{RESULTS}/tables/seed_check.md",
    log:
        f"{RESULTS}/logs/aggregate.log",
    script:
        "../scripts/aggregate.py"
