# Stage 5, figures: PNG (in the report) and PDF of every figure of the study.


rule figure_crossover:
    input:
        costs=f"{RESULTS}/tables/costs.csv",
        crossover=f"{RESULTS}/tables/crossover.csv",
    output:
        **figure_outputs("crossover", "1. The crossover"),
    log:
        f"{RESULTS}/logs/figures/crossover.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        ranks=config["figures"]["crossover_ranks"],
        dtype=config["figures"]["dtype"],
        algorithms=PLAN.algorithms,
    script:
        "../scripts/figure_crossover.py"


rule figure_phase:
    input:
        costs=f"{RESULTS}/tables/costs.csv",
        crossover=f"{RESULTS}/tables/crossover.csv",
    output:
        **figure_outputs("phase", "1. The crossover"),
    log:
        f"{RESULTS}/logs/figures/phase.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        dtype=config["figures"]["dtype"],
        algorithms=PLAN.algorithms,
    script:
        "../scripts/figure_phase.py"


rule figure_counts:
    input:
        f"{RESULTS}/tables/measurements.csv",
    output:
        **figure_outputs("counts", "2. The measured counts"),
    log:
        f"{RESULTS}/logs/figures/counts.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        elements=config["figures"]["counts_elements"],
        dtype=config["figures"]["dtype"],
        algorithms=PLAN.algorithms,
    script:
        "../scripts/figure_counts.py"


rule figure_hotspot:
    input:
        runs_at(
            config["figures"]["hotspot"]["ranks"],
            config["figures"]["hotspot"]["elements"],
            config["figures"]["dtype"],
        ),
    output:
        **figure_outputs("hotspot", "2. The measured counts"),
    log:
        f"{RESULTS}/logs/figures/hotspot.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    script:
        "../scripts/figure_hotspot.py"


rule figure_fabric_fits:
    input:
        [
            f"{RESULTS}/fabrics/{fabric}.json"
            for fabric, kind in PLAN.fabrics.items()
            if kind != "given"  # structured ones too: their classes may be measured
        ],
    output:
        **figure_outputs("fabric_fits", "3. The fabrics"),
    log:
        f"{RESULTS}/logs/figures/fabric_fits.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    script:
        "../scripts/figure_fabric_fits.py"


rule figure_structure:
    input:
        f"{RESULTS}/tables/costs.csv",
    output:
        **figure_outputs("structure", "3. The fabrics"),
    log:
        f"{RESULTS}/logs/figures/structure.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        structure=config["figures"].get("structure"),
        dtype=config["figures"]["dtype"],
        algorithms=PLAN.algorithms,
    script:
        "../scripts/figure_structure.py"


rule figure_workloads:
    input:
        costs=f"{RESULTS}/tables/costs.csv",
        crossover=f"{RESULTS}/tables/crossover.csv",
        workloads=f"{RESULTS}/tables/workloads.csv",
    output:
        **figure_outputs("workloads", "4. Decisions"),
    log:
        f"{RESULTS}/logs/figures/workloads.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        dtype=config["figures"]["dtype"],
        algorithms=PLAN.algorithms,
    script:
        "../scripts/figure_workloads.py"


rule figure_wallclock:
    input:
        f"{RESULTS}/tables/wallclock.csv",
    output:
        **figure_outputs("wallclock", "5. The model against the clock"),
    log:
        f"{RESULTS}/logs/figures/wallclock.log",
    priority: 1
    conda:
        ENV
    script:
        "../scripts/figure_wallclock.py"


rule figure_validation:
    input:
        validation=f"{RESULTS}/tables/validation.csv",
        clusters=f"{RESULTS}/tables/validation_clusters.csv",
    output:
        **figure_outputs("validation", "5. The model against the clock"),
    log:
        f"{RESULTS}/logs/figures/validation.log",
    priority: 1
    conda:
        ENV
    script:
        "../scripts/figure_validation.py"
