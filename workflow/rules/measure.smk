# Stage 1, measure: one job per grid point, each running the all-reduce on real processes
# and writing its record and its message trace; and the timed (wall-clock) runs, one job per
# transport and N, each alone on the machine.


rule measure:
    output:
        record=f"{RESULTS}/runs/{{dtype}}/{{algorithm}}/N{{ranks}}_M{{elements}}.json",
        trace=f"{RESULTS}/runs/{{dtype}}/{{algorithm}}/N{{ranks}}_M{{elements}}.trace.npz",
    log:
        f"{RESULTS}/logs/measure/{{dtype}}/{{algorithm}}/N{{ranks}}_M{{elements}}.log",
    conda:
        ENV
    threads: measure_threads
    resources:
        mem_mb=measure_memory_mb,
        runtime=RUNTIME_MINUTES,
    params:
        variant=variant_arguments,
        seed=config.get("seed", 0),
        data=config.get("data", "int"),
    shell:
        "collectives measure {params.variant} --ranks {wildcards.ranks}"
        " --elements {wildcards.elements} --dtype {wildcards.dtype} --seed {params.seed}"
        " --data {params.data} --timeout {resources.runtime}m --output {output.record}"
        " --trace {output.trace} 2> {log}"


rule bench:
    output:
        f"{RESULTS}/wallclock/{{transport}}/N{{ranks}}.json",
    log:
        f"{RESULTS}/logs/wallclock/{{transport}}/N{{ranks}}.log",
    priority: 100  # first, while no other job competes for the cores
    conda:
        ENV
    threads: all_cores  # a timing measurement: run it alone
    resources:
        runtime=RUNTIME_MINUTES,
        mpi=mpi_launcher,
        tasks=mpi_tasks,
        cpus_per_task=cpus_per_task,
    params:
        launcher=timing_command,
        algorithms=",".join(WALLCLOCK.algorithms) if WALLCLOCK else "",
        elements=",".join(map(str, WALLCLOCK.elements)) if WALLCLOCK else "",
        peers=bench_peers,
        warmup=WALLCLOCK.warmup if WALLCLOCK else 0,
        iterations=WALLCLOCK.iterations if WALLCLOCK else 1,
        dtype=config["figures"]["dtype"],
        seed=config.get("seed", 0),
    shell:
        "{params.launcher} bench --transport {wildcards.transport} --ranks {wildcards.ranks}"
        " --algorithms {params.algorithms} --elements {params.elements} --peers={params.peers}"
        " --dtype {params.dtype} --seed {params.seed} --warmup {params.warmup}"
        " --iterations {params.iterations} --timeout {resources.runtime}m --output {output}"
        " 2> {log}"
