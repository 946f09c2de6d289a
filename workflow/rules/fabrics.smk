# Stage 3, fabrics: the link classes of every fabric, given or fitted from measurements
# (this machine's own by ping-pong), and every run's trace replayed on each fabric.


rule pingpong:
    input:
        library=TARGETS.pingpong_library,
    output:
        points=paths.PINGPONG,
        reductions=paths.REDUCTIONS,
    log:
        paths.log("pingpong/{fabric}"),
    benchmark:
        paths.benchmark("pingpong", "{fabric}")
    priority: 100  # first, while the cores are still free
    conda:
        ENV
    threads: all_cores  # a timing measurement: run it alone
    resources:
        mpi=mpi_launcher,
        tasks=mpi_tasks,
        cpus_per_task=cpus_per_task,
    params:
        sizes=TARGETS.pingpong_sizes,
        iterations=TARGETS.pingpong_iterations,
        calibration=TARGETS.calibration_options,
        launcher=pingpong_launcher,
        transport=timing_transport,
        direct=lambda wildcards, input: "--direct" if input.library else "",
    message:
        "pingpong: fabric {wildcards.fabric}"
    shell:
        "collectives repeat {params.calibration} --what 'ping-pong {wildcards.fabric}'"
        " --output {output.points} -- {params.launcher} pingpong --transport"
        " {params.transport} {params.direct} --sizes {params.sizes} --iterations"
        " {params.iterations} --reduce-output {output.reductions} 2> {log}"


rule fabric:
    input:
        TARGETS.fabric_measurements,
    output:
        paths.FABRIC,
    log:
        paths.log("fabrics/{fabric}"),
    benchmark:
        paths.benchmark("fabric", "{fabric}")
    priority: 1
    group:
        "analysis"
    conda:
        ENV
    params:
        entry=TARGETS.fabric_config,
    message:
        "fabric: fit {wildcards.fabric}"
    script:
        "../scripts/fabric.py"


rule fabrics_table:
    input:
        TARGETS.fabric_files(),
    output:
        paths.table("fabrics.csv"),
    log:
        paths.log("fabrics_table"),
    benchmark:
        paths.benchmark("fabrics_table")
    priority: 1
    group:
        "analysis"
    conda:
        ENV
    message:
        "fabrics_table: every fabric's alpha and beta"
    script:
        "../scripts/fabrics_table.py"


rule replay:
    input:
        fabric=paths.FABRIC,
        # every record and trace reaches a replay through aggregate, which reads and checks
        # them all: a changed one reruns aggregate and, since every replay reads every
        # trace, each replay; a bad one fails aggregate, no replay starts, and the same
        # command measures it again. Declaring them here too would add 2 edges per run and
        # fabric to the DAG, which every invocation (a no-op too) builds.
        checked=paths.table("measurements.csv"),
    output:
        paths.REPLAY,
    log:
        paths.log("replay/{fabric}"),
    benchmark:
        paths.benchmark("replay", "{fabric}")
    priority: 1  # the tail of the DAG: start as soon as the inputs exist
    group:
        "analysis"
    conda:
        ENV
    params:
        records=TARGETS.records(),
        traces=TARGETS.traces(),
    message:
        "replay: every trace on fabric {wildcards.fabric}"
    script:
        "../scripts/replay.py"
