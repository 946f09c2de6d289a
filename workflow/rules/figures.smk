# Stage 5, figures: PNG (in the report) and PDF of every figure of the study.


rule figure_crossover:
    input:
        costs=paths.table("costs.csv"),
        crossover=paths.table("crossover.csv"),
    output:
        **figure_outputs("crossover", "1. The crossover"),
    log:
        paths.log("figures/crossover"),
    benchmark:
        paths.benchmark("figure_crossover")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        ranks=config["figures"]["headline"]["ranks"],
        fabrics=config["figures"]["headline"]["fabrics"],
        dtype=config["figures"]["dtype"],
        algorithms=config["figures"]["headline"]["algorithms"],
    script:
        "../scripts/figure_crossover.py"


rule figure_crossover_all:
    input:
        costs=paths.table("costs.csv"),
        crossover=paths.table("crossover.csv"),
    output:
        **figure_outputs("crossover_all", "1. The crossover"),
    log:
        paths.log("figures/crossover_all"),
    benchmark:
        paths.benchmark("figure_crossover_all")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        ranks=config["figures"]["crossover_ranks"],
        fabrics=None,  # every fabric
        dtype=config["figures"]["dtype"],
        algorithms=PLAN.algorithms,
    script:
        "../scripts/figure_crossover.py"


rule figure_phase:
    input:
        paths.table("costs.csv"),
    output:
        **figure_outputs("phase", "1. The crossover"),
    log:
        paths.log("figures/phase"),
    benchmark:
        paths.benchmark("figure_phase")
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
        paths.table("measurements.csv"),
    output:
        **figure_outputs("counts", "2. The measured counts"),
    log:
        paths.log("figures/counts"),
    benchmark:
        paths.benchmark("figure_counts")
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
        records=runs_at(
            config["figures"]["hotspot"]["ranks"],
            config["figures"]["hotspot"]["elements"],
            config["figures"]["dtype"],
        ),
        checked=paths.table("measurements.csv"),  # after aggregate has checked them
    output:
        **figure_outputs("hotspot", "2. The measured counts"),
    log:
        paths.log("figures/hotspot"),
    benchmark:
        paths.benchmark("figure_hotspot")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    script:
        "../scripts/figure_hotspot.py"


rule figure_fabric_fits:
    input:
        # every fabric with measured link classes (structured ones may have them too)
        fabric_files(kinds=("measured", "pingpong", "structured")),
    output:
        **figure_outputs("fabric_fits", "3. The fabrics"),
    log:
        paths.log("figures/fabric_fits"),
    benchmark:
        paths.benchmark("figure_fabric_fits")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    script:
        "../scripts/figure_fabric_fits.py"


rule figure_structure:
    input:
        paths.table("costs.csv"),
    output:
        **figure_outputs("structure", "3. The fabrics"),
    log:
        paths.log("figures/structure"),
    benchmark:
        paths.benchmark("figure_structure")
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
        costs=paths.table("costs.csv"),
        workloads=paths.table("workloads.csv"),
    output:
        **figure_outputs("workloads", "4. Decisions"),
    log:
        paths.log("figures/workloads"),
    benchmark:
        paths.benchmark("figure_workloads")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        dtype=config["figures"]["dtype"],
        algorithms=PLAN.algorithms,
    script:
        "../scripts/figure_workloads.py"
