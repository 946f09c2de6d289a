# Stage 3, fabrics: the link classes of every fabric, given or fitted from measurements,
# and every run's trace replayed on each fabric.


rule pingpong:
    output:
        points=f"{RESULTS}/pingpong/{{fabric}}.csv",
        reductions=f"{RESULTS}/pingpong/{{fabric}}.reduce.csv",
    log:
        f"{RESULTS}/logs/pingpong/{{fabric}}.log",
    priority: 100  # first, while the cores are still free
    conda:
        ENV
    threads: all_cores  # a timing measurement: run it alone
    resources:
        mpi=mpi_launcher,
        tasks=mpi_tasks,
        cpus_per_task=cpus_per_task,
    params:
        sizes=lambda wildcards: ",".join(
            map(
                str,
                expand_axis(config["fabrics"][wildcards.fabric]["pingpong"]["sizes"]),
            )
        ),
        iterations=lambda wildcards: config["fabrics"][wildcards.fabric][
            "pingpong"
        ].get("iterations", 200),
        launcher=timing_command,
        transport=timing_transport,
    shell:
        "{params.launcher} pingpong --transport {params.transport} --sizes {params.sizes}"
        " --iterations {params.iterations} --output {output.points}"
        " --reduce-output {output.reductions} 2> {log}"


rule fabric:
    input:
        fabric_measurements,
    output:
        f"{RESULTS}/fabrics/{{fabric}}.json",
    log:
        f"{RESULTS}/logs/fabrics/{{fabric}}.log",
    priority: 1
    conda:
        ENV
    params:
        entry=fabric_config,
    script:
        "../scripts/fabric.py"


rule fabrics_table:
    input:
        expand(f"{RESULTS}/fabrics/{{fabric}}.json", fabric=PLAN.fabrics),
    output:
        f"{RESULTS}/tables/fabrics.csv",
    log:
        f"{RESULTS}/logs/fabrics_table.log",
    priority: 1
    conda:
        ENV
    script:
        "../scripts/fabrics_table.py"


rule replay:
    input:
        fabric=f"{RESULTS}/fabrics/{{fabric}}.json",
        # every record and trace of the grid (one job writes both; this table follows them)
        measurements=f"{RESULTS}/tables/measurements.csv",
    output:
        f"{RESULTS}/replay/{{fabric}}.csv",
    log:
        f"{RESULTS}/logs/replay/{{fabric}}.log",
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    conda:
        ENV
    params:
        results=lambda wildcards, input: Path(input.measurements).parent.parent,
    script:
        "../scripts/replay.py"
