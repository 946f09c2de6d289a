# The timed runs and the model against the clock: each transport's wall-clock runs (one
# job per transport and N, alone on the machine) beside MPI_Allreduce and Gloo, their
# predictions from the calibrated fabrics' replays, and real clusters' osu_allreduce logs.


rule bench:
    output:
        paths.WALLCLOCK,
    log:
        paths.log("wallclock/{transport}/N{ranks}"),
    benchmark:
        paths.benchmark("bench", "{transport}/N{ranks}")
    priority: 100  # first, while no other job competes for the cores
    conda:
        ENV
    threads: all_cores  # a timing measurement: run it alone
    resources:
        runtime=repeated_runtime,
        mpi=mpi_launcher,
        tasks=mpi_tasks,
        cpus_per_task=cpus_per_task,
    params:
        launcher=timing_command,
        repeat=TARGETS.bench_options,
        algorithms=",".join(WALLCLOCK.algorithms) if WALLCLOCK else "",
        elements=",".join(map(str, WALLCLOCK.elements)) if WALLCLOCK else "",
        peers=TARGETS.bench_peers,
        protocol=jobs.bench_protocol(WALLCLOCK) if WALLCLOCK else "",
        dtype=PLAN.dtype,
        seed=config["seed"],
        timeout=RUNTIME_MINUTES,  # each launch's
    message:
        "bench: {wildcards.transport} N={wildcards.ranks}, timed"
    shell:
        "collectives repeat {params.repeat}"
        " --what 'bench {wildcards.transport} N={wildcards.ranks}' --output {output} --"
        " {params.launcher} bench --transport {wildcards.transport} --ranks {wildcards.ranks}"
        " --algorithms {params.algorithms} --elements {params.elements} --peers={params.peers}"
        " --dtype {params.dtype} --seed {params.seed} {params.protocol}"
        " --timeout {params.timeout}m 2> {log}"


rule exchange:
    output:
        paths.EXCHANGE,
    log:
        paths.log("exchange/{transport}/N{ranks}"),
    benchmark:
        paths.benchmark("exchange", "{transport}/N{ranks}")
    priority: 100  # first, while no other job competes for the cores
    conda:
        ENV
    threads: all_cores  # a timing measurement: run it alone
    resources:
        runtime=repeated_runtime,
        mpi=mpi_launcher,
        tasks=mpi_tasks,
        cpus_per_task=cpus_per_task,
    params:
        launcher=timing_command,
        sizes=TARGETS.pingpong_sizes,
        iterations=TARGETS.pingpong_iterations,
        calibration=TARGETS.calibration_options,
    message:
        "exchange: {wildcards.transport} N={wildcards.ranks}"
    shell:
        "collectives repeat {params.calibration}"
        " --what 'exchange {wildcards.transport} N={wildcards.ranks}' --output {output} --"
        " {params.launcher} exchange --transport {wildcards.transport} --ranks {wildcards.ranks}"
        " --sizes {params.sizes} --iterations {params.iterations} 2> {log}"


rule wallclock_table:
    input:
        runs=TARGETS.wallclock_runs(),
        peers=TARGETS.library_peers(),
    output:
        paths.table("wallclock.csv"),
    log:
        paths.log("wallclock_table"),
    benchmark:
        paths.benchmark("wallclock_table")
    priority: 1
    group:
        "results"
    conda:
        ENV
    message:
        "wallclock_table: every timed run"
    script:
        "../scripts/wallclock_table.py"


rule validation_cluster:
    input:
        fabrics=TARGETS.cluster_fabrics,
        logs=TARGETS.cluster_logs,
    output:
        paths.CLUSTER,
    log:
        paths.log("clusters/{cluster}"),
    benchmark:
        paths.benchmark("validation_cluster", "{cluster}")
    priority: 1
    group:
        "analysis"
    conda:
        ENV
    params:
        entry=lambda wildcards: json.dumps(
            WALLCLOCK.clusters[wildcards.cluster], sort_keys=True
        ),
        algorithms=PLAN.flat_algorithms,
    message:
        "validation_cluster: {wildcards.cluster} against its osu_allreduce log"
    script:
        "../scripts/validation_cluster.py"


rule validation_clusters:
    input:
        [
            paths.CLUSTER.format(cluster=name)
            for name in sorted(WALLCLOCK.clusters if WALLCLOCK else {})
        ],
    output:
        paths.table("validation_clusters.csv"),
    log:
        paths.log("validation_clusters"),
    benchmark:
        paths.benchmark("validation_clusters")
    priority: 1
    group:
        "analysis"
    conda:
        ENV
    message:
        "validation_clusters: the clusters' errors by rung"
    script:
        "../scripts/validation_clusters.py"


rule validation:
    input:
        wallclock=paths.table("wallclock.csv"),
        fabrics=(
            [paths.FABRIC.format(fabric=f) for f in WALLCLOCK.fabrics.values()]
            if WALLCLOCK
            else []
        ),
        clusters=paths.table("validation_clusters.csv"),
        exchanges=TARGETS.exchange_runs(),
    output:
        validation=paths.table("validation.csv"),
        crossover=paths.table("validation_crossover.csv"),
        summary=paths.table("validation_summary.csv"),
    log:
        paths.log("validation"),
    benchmark:
        paths.benchmark("validation")
    priority: 1
    group:
        "results"
    conda:
        ENV
    params:
        calibration=json.dumps(WALLCLOCK.fabrics if WALLCLOCK else {}, sort_keys=True),
        exchanges=json.dumps(jobs.exchange_keys(WALLCLOCK)),
        noise_bound=WALLCLOCK.noise_bound if WALLCLOCK else 0,
    message:
        "validation: the model ladder against the clock"
    script:
        "../scripts/validation.py"
