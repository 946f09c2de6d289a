# Shared helpers: the grid and fabric lists expanded from the checked config (PLAN).


from collectives.grid import expand_axis


wildcard_constraints:
    algorithm="[a-z_]+",
    dtype="[a-z0-9]+",
    ranks="[0-9]+",
    elements="[0-9]+",
    fabric="[A-Za-z0-9][A-Za-z0-9_.-]*",


def run_path(algorithm, ranks, elements, dtype):
    """Where one grid point's record lives."""
    return f"{RESULTS}/runs/{dtype}/{algorithm}/N{ranks}_M{elements}.json"


def all_runs():
    """Every record of the grid, in a stable order."""
    return [
        run_path(algorithm, ranks, elements, dtype)
        for dtype in PLAN.dtypes
        for algorithm in PLAN.algorithms
        for ranks in PLAN.ranks
        for elements in PLAN.elements
    ]


def fabric_config(wildcards):
    """Only this fabric's entry, so adding a fabric changes no other job's params."""
    return config["fabrics"][wildcards.fabric]


def fabric_measurements(wildcards):
    """The point-to-point file a fabric is fitted from (none for a given fabric)."""
    kind = PLAN.fabrics[wildcards.fabric]
    if kind == "measured":
        return [config["fabrics"][wildcards.fabric]["measurements"]]
    if kind == "pingpong":
        return [f"{RESULTS}/pingpong/{wildcards.fabric}.csv"]
    return []
