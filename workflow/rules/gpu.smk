# The GPU systems of the config against NCCL's clock: each system's nccl-tests log beside
# each rung's prediction (one job per system), then one table, its per-system summary and
# what each system's busbw means for its links.


rule gpu_system:
    input:
        log=lambda wildcards: PLAN.gpu_systems[wildcards.system]["log"],
        fabrics=gpu_fabrics,
    output:
        paths.GPU_SYSTEM,
    log:
        paths.log("gpu/{system}"),
    benchmark:
        paths.benchmark("gpu_system", "{system}")
    conda:
        ENV
    params:
        entry=lambda wildcards: json.dumps(
            PLAN.gpu_systems[wildcards.system], sort_keys=True
        ),
        algorithms=config["algorithms"],
    script:
        "../scripts/gpu_system.py"


rule validation_gpu:
    input:
        [paths.GPU_SYSTEM.format(system=name) for name in PLAN.gpu_systems],
    output:
        table=paths.table("validation_gpu.csv"),
        summary=paths.table("validation_gpu_summary.csv"),
        busbw=paths.table("gpu_busbw.csv"),
    log:
        paths.log("validation_gpu"),
    benchmark:
        paths.benchmark("validation_gpu")
    conda:
        ENV
    params:
        systems=json.dumps(PLAN.gpu_systems, sort_keys=True),
    script:
        "../scripts/validation_gpu.py"
