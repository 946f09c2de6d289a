"""docs/extending.md's recipes, applied as the page says to a scratch copy of the workflow:
its own snippets, read from the Markdown, are the only edit (with a shipped log standing for
the reader's), and what each adds comes out of the pipeline."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.support.workflow import PNG, REPO, TINY_CONFIG, snakemake, tiny_workflow

PAGE = REPO / "docs/extending.md"
# A shipped osu_latency log (one table) stands for "the output of osu_latency from your
# cluster" that the first recipe copies into config/fabrics/
YOUR_LOG = REPO / "config/fabrics/cray_xc_aries_gni_libfabric_osu_latency_2nodes.txt"


def scratch_package(workdir: Path) -> dict[str, str]:
    """A copy of the package in the scratch workflow, to edit as a recipe says; the
    environment in which Snakemake and its jobs import it rather than the installed one."""
    shutil.copytree(REPO / "src", workdir / "src")
    return {**os.environ, "PYTHONPATH": str(workdir / "src")}


def block(heading: str) -> str:
    """The first YAML block under `heading` on the page."""
    text = PAGE.read_text()
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert found, f"{heading}: no YAML block"
    return found.group(1)


def snippet(heading: str) -> dict:
    """The `fabrics:` entries of the first YAML block under `heading` on the page."""
    return yaml.safe_load("fabrics:\n" + block(heading))["fabrics"]


RECIPES = ["Your own fabric, from a benchmark log", "Your own fabric, from numbers",
           "A fabric with structure"]  # fmt: skip


@pytest.mark.parametrize("heading", RECIPES)
def test_each_recipe_is_one_config_entry(heading):
    entries = snippet(heading)
    assert len(entries) == 1  # the page's whole edit: one entry under fabrics:


def test_the_fabric_recipes_give_each_new_fabric_its_costs(tmp_path):
    workdir = tiny_workflow(tmp_path / "work")
    added = {name: entry for heading in RECIPES for name, entry in snippet(heading).items()}
    logs = {part["measurements"] for entry in added.values()
            for part in (entry, entry.get("inter", {})) if "measurements" in part}  # fmt: skip
    for log in logs:  # the page's step: copy your log to config/fabrics/
        (workdir / log).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(YOUR_LOG, workdir / log)
    config = TINY_CONFIG | {"fabrics": TINY_CONFIG["fabrics"] | added}
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(config))
    done = snakemake(workdir, "results/tables/costs.csv", config="config/config.yaml")
    assert done.returncode == 0, done.stderr[-3000:]
    costs = pd.read_csv(workdir / "results/tables/costs.csv")
    for name in added:
        rows = costs[costs.fabric == name]
        assert len(rows) > 0 and (rows.time_s > 0).all(), name
    ring = costs[costs.algorithm == "ring"].groupby("fabric").time_s.max()
    # N = 8 on nodes of 8: every message inside the node, on its intra link (NVLink's
    # 0.3 us), none on its inter link, mycluster's log (1.8 us), that prices all of mycluster's
    assert ring["mynodes"] < ring["nvlink4"] < ring["mycluster"]


# A shipped nccl-tests log of 2 nodes of 8 H100 80GB HBM3 that names no NCCL release stands
# for "your nccl-tests log" of the GPU system recipe.
YOUR_NCCL_LOG = REPO / "config/fabrics/gcp_a3mega_h100_tcpxo_nccl_allreduce_16gpus_2nodes.txt"
SHIPPED = yaml.safe_load((REPO / "config/config.yaml").read_text())


def gpu_system_recipe(workdir: Path, release: str | None = None) -> tuple[str, dict]:
    """The page's GPU system entry (its release changed to `release` if given), its log
    and its link-level fabrics (the first recipe's fit, its log copied, and the default
    config's NVLink) in the scratch workflow's config; its name and entry."""
    (system, entry), *others = yaml.safe_load(block("A GPU system"))["gpu_systems"].items()
    assert not others  # the page's whole edit: one entry under gpu_systems:
    if release:
        entry["library"]["release"] = release
    (workdir / entry["log"]).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(YOUR_NCCL_LOG, workdir / entry["log"])
    fabrics = snippet("Your own fabric, from a benchmark log")
    shutil.copy(YOUR_LOG, workdir / fabrics[entry["inter_fabric"]]["measurements"])
    fabrics[entry["intra_fabric"]] = SHIPPED["fabrics"][entry["intra_fabric"]]
    config = TINY_CONFIG | {"fabrics": TINY_CONFIG["fabrics"] | fabrics,
                            "gpu_systems": {system: entry}}  # fmt: skip
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(config))
    return system, entry


def test_the_gpu_system_recipe_prices_a_new_system_with_its_entrys_release(tmp_path):
    workdir = tiny_workflow(tmp_path / "work")
    system, entry = gpu_system_recipe(workdir)
    target = f"results/gpu/{system}.csv"
    done = snakemake(workdir, target, config="config/config.yaml")
    assert done.returncode == 0, done.stderr[-3000:]
    priced = pd.read_csv(workdir / target)
    sizes = re.findall(r"^\s+(\d+)\s+\d+\s+float\s+sum", YOUR_NCCL_LOG.read_text(), re.MULTILINE)
    assert sorted(priced.message_bytes) == sorted(map(int, sizes))  # every size it printed
    assert (priced.release == entry["library"]["release"]).all()  # the log names none
    assert (priced.release_modelled == entry["library"]["release"]).all()
    rungs = [column for column in priced.columns if column.endswith("_s")]
    assert len(rungs) > 2 and (priced[rungs] > 0).all().all()


def test_the_release_recipe_is_one_table_and_its_systems_are_priced_with_it(tmp_path):
    """A new release, as "A new library release" says: the newest table copied under the new
    release's name in the library's file, no code; a system of that release is then priced
    with it, not with the nearest one before."""
    workdir = tiny_workflow(tmp_path / "work")
    environment = scratch_package(workdir)
    releases = workdir / "src/collectives/model/releases/nccl.toml"
    text = releases.read_text()
    newest = text[text.rindex('\n[releases."') :]  # the file's last table
    version = re.match(r'\n\[releases\."([\d.]+)"\]', newest).group(1)
    releases.write_text(text + newest.replace(f'"{version}"', '"2.99.0"', 1))
    system, _ = gpu_system_recipe(workdir, release="2.99.0")
    target = f"results/gpu/{system}.csv"
    done = snakemake(workdir, target, config="config/config.yaml",
                     env=environment)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    priced = pd.read_csv(workdir / target)
    assert set(priced.release_modelled) == {"2.99.0"} and priced.release_note.isna().all()


def test_the_library_recipe_is_one_module_and_its_selection_is_exported(tmp_path):
    """A new MPI library, as "A new MPI library" says: the page's module beside the others,
    its name in the tuple of KINDS, and the library in the config (this environment's MPICH
    standing for its installation); its selection file then comes out of the pipeline."""
    section = PAGE.read_text().split("\n## A new MPI library\n", 1)[1].split("\n## ", 1)[0]
    module = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    workdir = tiny_workflow(tmp_path / "work")
    environment = scratch_package(workdir)
    package = workdir / "src/collectives/run/libraries"
    (package / "examplempi.py").write_text(module)
    known = (package / "__init__.py").read_text()
    for old, new in (("from . import impi,", "from . import examplempi, impi,"),
                     ("impi.KIND)}", "impi.KIND, examplempi.KIND)}")):  # fmt: skip
        assert old in known
        known = known.replace(old, new, 1)
    (package / "__init__.py").write_text(known)
    config = TINY_CONFIG | {"libraries": {"examplempi": {"prefix": sys.prefix}}}
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(config))
    done = snakemake(workdir, "results/tables/selection.csv", config="config/config.yaml",
                     env=environment)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    chosen = pd.read_csv(workdir / "results/tables/selection.csv")
    assert len(chosen) and set(chosen.fabric) == set(TINY_CONFIG["fabrics"])
    for fabric, rows in chosen.groupby("fabric"):
        exported = (workdir / f"results/selection/{fabric}/examplempi.rules").read_text()
        lines = [line.split() for line in exported.splitlines()]
        ranges = list(zip(rows.ranks, rows.min_bytes, strict=True))
        assert [(int(n), int(low)) for n, low, _ in lines] == ranges
        assert {name for *_, name in lines} <= {"ring", "rd"}  # the library's own names


WORKLOADS_PAGE = REPO / "docs/workloads.md"


def test_the_workload_recipe_puts_a_new_model_on_the_map(tmp_path):
    workdir = tiny_workflow(tmp_path / "work")
    text = WORKLOADS_PAGE.read_text().split("\n## Describing a workload\n", 1)[1]
    listed = yaml.safe_load(re.search(r"```yaml\n(.*?)```", text, re.DOTALL).group(1))
    (name, entry), *others = listed["workloads"].items()
    assert not others  # the page's whole edit: one entry under workloads:
    # its degrees are values of `ranks` and its fabrics entries of `fabrics:`, as in the
    # default config
    fabrics = {key: SHIPPED["fabrics"][entry[key]] for key in ("tp_fabric", "dp_fabric")}
    config = TINY_CONFIG | {
        "ranks": sorted({*TINY_CONFIG["ranks"], entry["tp"], entry["dp"]}),
        "fabrics": TINY_CONFIG["fabrics"] | {entry[key]: f for key, f in fabrics.items()},
        "workloads": {name: entry},
    }
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(config))
    done = snakemake(workdir, "results/tables/workloads.csv", config="config/config.yaml")
    assert done.returncode == 0, done.stderr[-3000:]
    rows = pd.read_csv(workdir / "results/tables/workloads.csv").query("workload == @name")
    assert set(rows.group) == {"TP", "DP"}
    assert set(rows.ranks) == {entry["tp"], entry["dp"]} and (rows.message_bytes > 0).all()
    assert set(rows.winner) <= set(TINY_CONFIG["algorithms"])


ALGORITHMS_PAGE = REPO / "docs/algorithms.md"
# The recipe's new algorithm: naive under another name, its module, its closed form and its
# registry entry as the page's three places ask
NEW_MODULE = '''"""Gather to rank 0 and broadcast back, under another name: the recipe's algorithm.

Cost: 2(N-1) α + 2(N-1) nβ + (N-1) Mγ
"""

from collectives.algorithms import naive


def allreduce(comm, x):
    """Rank 0 gathers and sums, then sends the sum back."""
    return naive.allreduce(comm, x)
'''
NEW_THEORY = '''

def gather_twice(n: int, m: int, s: int) -> Counts:
    """As naive: rank 0's ports serialize N-1 receives and N-1 sends."""
    every = 2 * (n - 1)
    return Counts(every, every, every * m * s, every * m * s, every * m * s)
'''
NEW_ENTRY = """        Algorithm(
            "gather_twice", gather_twice.allreduce, theory.gather_twice, "gather twice",
            Style(None, "X", (0, (2, 2))),
        ),
"""


def test_the_algorithm_recipe_is_three_files_and_its_runs_reach_the_tables(tmp_path):
    steps = ALGORITHMS_PAGE.read_text().split("\n## Adding an algorithm\n", 1)[1]
    places = re.findall(r"^\d\. one [\w -]+? in `(src/collectives/[\w/.]+)`", steps, re.MULTILINE)
    module, closed_form, entry = places
    assert (module, closed_form, entry) == ("src/collectives/algorithms/",
        "src/collectives/model/theory.py", "src/collectives/registry.py")  # fmt: skip
    workdir = tiny_workflow(tmp_path / "work")
    environment = scratch_package(workdir)
    (workdir / module / "gather_twice.py").write_text(NEW_MODULE)
    with (workdir / closed_form).open("a") as theory:
        theory.write(NEW_THEORY)
    registry = (workdir / entry).read_text()
    registry = registry.replace("    two_shot,\n)", "    gather_twice,\n    two_shot,\n)", 1)
    registry = registry.replace("    )\n}  # fmt: skip", NEW_ENTRY + "    )\n}  # fmt: skip", 1)
    (workdir / entry).write_text(registry)
    algorithms = [*TINY_CONFIG["algorithms"], "gather_twice"]  # the config's one line
    (workdir / "config/config.yaml").write_text(
        yaml.safe_dump(TINY_CONFIG | {"algorithms": algorithms})
    )
    done = snakemake(workdir, "results/tables/costs.csv", config="config/config.yaml",
                     env=environment)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    runs = pd.read_csv(workdir / "results/tables/measurements.csv")
    new = runs[runs.algorithm == "gather_twice"]
    assert len(new) == 1 and new.verified.all() and new.matches_theory.all()
    naive_alike = new.iloc[0]
    assert naive_alike.rounds == 2 * (naive_alike.ranks - 1)  # as its closed form says
    costs = pd.read_csv(workdir / "results/tables/costs.csv")
    assert (costs[costs.algorithm == "gather_twice"].time_s > 0).all()


# The recipe's new figure: message rounds against N, from measurements.csv
NEW_FIGURE = '''"""Message rounds against N: the recipe's figure."""

import pandas as pd

from .style import Plot, legend_below, panels


def draw(measurements: pd.DataFrame, dtype: str) -> Plot:
    """Each algorithm's measured rounds at each N."""
    data = measurements[measurements.dtype == dtype].groupby(
        ["algorithm", "ranks"], as_index=False
    ).rounds.max()
    fig, (axis,) = panels(1, height=2.0)
    for algorithm, runs in data.groupby("algorithm"):
        axis.plot(runs.ranks, runs.rounds, marker="o", label=algorithm)
    axis.set(xlabel="ranks N", ylabel="message rounds")
    legend_below(fig, axis.get_legend_handles_labels()[0])
    return Plot(fig, data)
'''
NEW_ROW = """    "rounds_by_n": {
        "section": "study",
        "module": "rounds_by_n",
        "category": "2. The measured counts",
        "inputs": {"measurements": table("measurements.csv")},
        "params": {"dtype": DTYPE},
    },
"""


def test_the_figure_recipe_is_a_module_a_caption_and_a_row(tmp_path):
    page = " ".join(PAGE.read_text().split())  # the page's words, however it wraps them
    assert (
        "A new figure is a module there, a caption in `workflow/report/NAME.rst`, and its "
        "row in the table of figures (`FIGURES` in `workflow/rules/figures.smk`"
    ) in page
    workdir = tiny_workflow(tmp_path / "work")
    environment = scratch_package(workdir)
    (workdir / "src/collectives/study/figures/rounds_by_n.py").write_text(NEW_FIGURE)
    (workdir / "workflow/report/rounds_by_n.rst").write_text("Message rounds against N.\n")
    table_of_figures = workdir / "workflow/rules/figures.smk"
    rows = table_of_figures.read_text()
    assert rows.count("\nFIGURES = {\n") == 1
    table_of_figures.write_text(rows.replace("\nFIGURES = {\n", "\nFIGURES = {\n" + NEW_ROW))
    done = snakemake(workdir, "results/figures/rounds_by_n.png", config="config/config.yaml",
                     env=environment)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    figure = workdir / "results/figures/rounds_by_n"
    assert figure.with_suffix(".png").read_bytes().startswith(PNG)
    assert figure.with_suffix(".pdf").read_bytes().startswith(b"%PDF")
    plotted = pd.read_csv(figure.with_suffix(".csv"))
    assert set(plotted.algorithm) == set(TINY_CONFIG["algorithms"])
