# Stage 1, measure: one job per grid point, each running the all-reduce on real processes
# and writing its record and its message trace.


rule measure:
    output:
        record=paths.RECORD,
        trace=paths.TRACE,
    log:
        paths.log("measure/{dtype}/{algorithm}/N{ranks}_M{elements}"),
    benchmark:
        paths.benchmark("measure", "{dtype}/{algorithm}/N{ranks}_M{elements}")
    group:
        "grid"
    conda:
        ENV
    threads: measure_threads
    resources:
        mem_mb=measure_memory,
        runtime=RUNTIME_MINUTES,
    params:
        variant=TARGETS.variant_arguments,
        seed=config["seed"],
        data=config["data"],
    message:
        "measure: {wildcards.algorithm} N={wildcards.ranks} M={wildcards.elements} {wildcards.dtype}"
    shell:
        # counts, not times: waiting ranks sleep, as --cores runs several jobs per core
        "COLLECTIVES_WAIT=sleep collectives measure {params.variant} --ranks {wildcards.ranks}"
        " --elements {wildcards.elements} --dtype {wildcards.dtype} --seed {params.seed}"
        " --data {params.data} --timeout {resources.runtime}m --output {output.record}"
        " --trace {output.trace} 2> {log}"
