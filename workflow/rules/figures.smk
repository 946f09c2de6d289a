# Stage 5, figures: every figure of the study from one table, one job each, drawn by one
# script (PNG in the report with its caption workflow/report/{name}.rst, PDF, and the CSV
# of what it plots). A new figure is its module in collectives/study/figures/, its caption,
# and its row here: the section whose outputs it joins (study; wallclock, gpu and tuning,
# drawn when the config has them), the module, the report's category, each input (how it is
# read: a table, fabrics or run records; "after" only orders the job) and the draw()
# parameters.


def table(name):
    """A table of results/tables/ as a figure input."""
    return ("table", paths.table(name))


DTYPE = PLAN.dtype
FIGURES = {
    "crossover": {
        "section": "study",
        "module": "crossover",
        "category": "1. The crossover",
        "inputs": {"costs": table("costs.csv"), "crossover": table("crossover.csv")},
        "params": {
            "ranks": config["figures"]["headline"]["ranks"],
            "fabrics": config["figures"]["headline"]["fabrics"],
            "dtype": DTYPE,
            "algorithms": config["figures"]["headline"]["algorithms"],
        },
    },
    "crossover_all": {
        "section": "study",
        "module": "crossover",
        "category": "1. The crossover",
        "inputs": {"costs": table("costs.csv"), "crossover": table("crossover.csv")},
        "params": {
            "ranks": config["figures"]["crossover_ranks"],
            "fabrics": None,  # every fabric
            "dtype": DTYPE,
            "algorithms": PLAN.algorithms,
        },
    },
    "phase": {
        "section": "study",
        "module": "phase",
        "category": "1. The crossover",
        "inputs": {"costs": table("costs.csv")},
        "params": {"dtype": DTYPE, "algorithms": PLAN.algorithms},
    },
    "counts": {
        "section": "study",
        "module": "counts",
        "category": "2. The measured counts",
        "inputs": {"measurements": table("measurements.csv")},
        "params": {
            "elements": config["figures"]["counts_elements"],
            "dtype": DTYPE,
            "algorithms": PLAN.algorithms,
        },
    },
    "hotspot": {
        "section": "study",
        "module": "hotspot",
        "category": "2. The measured counts",
        "inputs": {
            "records": (
                "records",
                TARGETS.records_at(
                    config["figures"]["hotspot"]["ranks"],
                    config["figures"]["hotspot"]["elements"],
                    DTYPE,
                ),
            ),
            # after aggregate has checked them
            "checked": ("after", paths.table("measurements.csv")),
        },
        "params": {},
    },
    "fabric_fits": {
        "section": "study",
        "module": "fabric_fits",
        "category": "3. The fabrics",
        # every fabric with measured link classes (structured ones may have them too)
        "inputs": {
            "fabrics": (
                "fabrics",
                TARGETS.fabric_files(kinds=("measured", "pingpong", "structured")),
            )
        },
        "params": {},
    },
    "structure": {
        "section": "study",
        "module": "structure",
        "category": "3. The fabrics",
        "inputs": {"costs": table("costs.csv")},
        "params": {
            "structure": config["figures"].get("structure"),
            "dtype": DTYPE,
            "algorithms": PLAN.algorithms,
        },
    },
    "workloads": {
        "section": "study",
        "module": "workloads",
        "category": "4. Decisions",
        "inputs": {"costs": table("costs.csv"), "workloads": table("workloads.csv")},
        "params": {"dtype": DTYPE, "algorithms": PLAN.algorithms},
    },
    "scale": {
        "section": "study",
        "module": "scale",
        "category": "4. Decisions",
        "inputs": {"scale": table("scale.csv")},
        "params": {},
    },
    "wallclock": {
        "section": "wallclock",
        "module": "wallclock",
        "category": "5. The model against the clock",
        "inputs": {"wallclock": table("wallclock.csv")},
        "params": {},
    },
    "validation": {
        "section": "wallclock",
        "module": "validation",
        "category": "5. The model against the clock",
        "inputs": {
            "validation": table("validation.csv"),
            "clusters": table("validation_clusters.csv"),
        },
        "params": {},
    },
    "gpu_systems": {
        "section": "gpu",
        "module": "gpu_systems",
        "category": "5. The model against the clock",
        "inputs": {"validation": table("validation_gpu.csv")},
        "params": {},
    },
    "nccl_choice": {
        "section": "gpu",
        "module": "nccl_choice",
        "category": "5. The model against the clock",
        "inputs": {"choice": table("nccl_choice_map.csv")},
        "params": {},
    },
    "tuned_vs_default": {
        "section": "tuning",
        "module": "tuned_vs_default",
        "category": "6. Tuning the libraries",
        "inputs": {"table": table("tuned_vs_default.csv")},
        "params": {},
    },
}


# Each figure's section: the targets' figures (study.targets)
FIGURE_SECTIONS = {name: row["section"] for name, row in FIGURES.items()}


# The SLURM group of each section's figures: the study's and the GPU systems' join the
# analysis; the timed ones follow the timing jobs (profiles/slurm/README.md).
SECTION_GROUP = {
    "study": "analysis",
    "gpu": "analysis",
    "wallclock": "results",
    "tuning": "results",
}


for figure, row in FIGURES.items():

    rule:
        name:
            f"figure_{figure}"
        input:
            **{name: files for name, (_, files) in row["inputs"].items()},
        output:
            **figure_outputs(figure, row["category"]),
        log:
            paths.log(f"figures/{figure}"),
        benchmark:
            paths.benchmark(f"figure_{figure}")
        priority: 1  # the tail of the DAG: start as soon as the inputs exist
        group:
            SECTION_GROUP[row["section"]]
        conda:
            ENV
        params:
            module=row["module"],
            kinds={
                name: kind
                for name, (kind, _) in row["inputs"].items()
                if kind != "after"
            },
            arguments=row["params"],
        message:
            f"figure_{figure}: results/figures/{figure}.png"
        script:
            "../scripts/figure.py"
