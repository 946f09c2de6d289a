"""docs/extending.md's fabric recipes, applied as the page says to a scratch copy of the
workflow: its own snippets, read from the Markdown, are the only edit, and the new fabrics'
costs come out of the pipeline."""

from __future__ import annotations

import re
import shutil

import pandas as pd
import pytest
import yaml

from tests.support.workflow import REPO, TINY_CONFIG, snakemake, tiny_workflow

PAGE = REPO / "docs/extending.md"
# A shipped osu_latency log (one table) stands for "the output of osu_latency from your
# cluster" that the first recipe copies into config/fabrics/
YOUR_LOG = REPO / "config/fabrics/cray_xc_aries_gni_libfabric_osu_latency_2nodes.txt"


def snippet(heading: str) -> dict:
    """The `fabrics:` entries of the first YAML block under `heading` on the page."""
    text = PAGE.read_text()
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block, f"{heading}: no YAML block"
    return yaml.safe_load("fabrics:\n" + block.group(1))["fabrics"]


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
