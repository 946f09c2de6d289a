# The GPU systems of the config against NCCL's clock: each system's nccl-tests log beside
# each rung's prediction (one job per system), then one table, its per-system summary and
# what each system's busbw means for its links; and NCCL's choice over node counts and sizes
# of one system beside our cheapest algorithm.


rule gpu_system:
    input:
        log=lambda wildcards: PLAN.gpu_systems[wildcards.system]["log"],
        fabrics=lambda wildcards: TARGETS.system_fabrics(wildcards.system),
    output:
        paths.GPU_SYSTEM,
    log:
        paths.log("gpu/{system}"),
    benchmark:
        paths.benchmark("gpu_system", "{system}")
    group:
        "analysis"
    conda:
        ENV
    params:
        entry=lambda wildcards: json.dumps(
            PLAN.gpu_systems[wildcards.system], sort_keys=True
        ),
        algorithms=config["algorithms"],
    message:
        "gpu_system: {wildcards.system} against its nccl-tests log"
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
    group:
        "analysis"
    conda:
        ENV
    params:
        systems=json.dumps(PLAN.gpu_systems, sort_keys=True),
    message:
        "validation_gpu: the GPU systems' errors by rung"
    script:
        "../scripts/validation_gpu.py"


rule nccl_choice_map:
    input:
        lambda wildcards: TARGETS.system_fabrics(PLAN.figures["nccl_choice"]["system"]),
    output:
        paths.table("nccl_choice_map.csv"),
    log:
        paths.log("nccl_choice_map"),
    benchmark:
        paths.benchmark("nccl_choice_map")
    group:
        "analysis"
    conda:
        ENV
    params:
        choice=lambda wildcards: json.dumps(PLAN.figures["nccl_choice"], sort_keys=True),
        entry=lambda wildcards: json.dumps(
            PLAN.gpu_systems[PLAN.figures["nccl_choice"]["system"]], sort_keys=True
        ),
        algorithms=config["algorithms"],
    message:
        "nccl_choice_map: NCCL's choice by nodes and size"
    script:
        "../scripts/nccl_choice_map.py"
