# Stage 1, measure: one job per grid point, each running the all-reduce on real processes.


rule measure:
    output:
        f"{RESULTS}/runs/{{dtype}}/{{algorithm}}/N{{ranks}}_M{{elements}}.json",
    log:
        f"{RESULTS}/logs/measure/{{dtype}}/{{algorithm}}/N{{ranks}}_M{{elements}}.log",
    params:
        seed=config.get("seed", 0),
        data=config.get("data", "int"),
    threads: lambda wildcards: measure_threads(wildcards)
    resources:
        mem_mb=lambda wildcards: measure_memory_mb(wildcards),
    shell:
        "{COLLECTIVES} measure --algorithm {wildcards.algorithm} --ranks {wildcards.ranks}"
        " --elements {wildcards.elements} --dtype {wildcards.dtype} --seed {params.seed}"
        " --data {params.data} --timeout {config[timeout]} --output {output} 2> {log}"


def measure_memory_mb(wildcards):
    """Inputs/results, staging, a warm heap per rank, and ~40 MB per rank process."""
    ranks, elements = int(wildcards.ranks), int(wildcards.elements)
    vector_mb = elements * 8 / 1e6
    return int(200 + ranks * (40 + 3 * vector_mb))


def measure_threads(wildcards):
    """One process per rank, but no more cores than this machine has: a job cannot use
    more, and --cores then bounds how many jobs share them."""
    return min(int(wildcards.ranks), os.cpu_count() or 1)
