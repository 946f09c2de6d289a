"""The pipeline config's meaning: every problem named by its key."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from collectives.study.config import ConfigError, check

REPO = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((REPO / "config/config.yaml").read_text())


def test_the_shipped_config_is_valid():
    plan = check(CONFIG, REPO)
    assert plan.algorithms == [
        "naive", "ring", "recursive_doubling", "rabenseifner", "binomial_tree", "hierarchical-G8",
    ]  # fmt: skip
    hierarchical = plan.variants[-1]
    assert hierarchical.arguments() == "--algorithm hierarchical --ranks-per-node 8"
    assert [n for n in plan.ranks if hierarchical.runs_at(n)] == [8, 16, 32, 64]
    assert plan.fabrics["ndv2"] == "structured"
    assert plan.ranks == [2, 3, 4, 8, 16, 32, 64]
    assert plan.elements == [4**k for k in range(11)]
    assert plan.fabrics["nvlink"] == "given"
    assert plan.fabrics["local"] == "pingpong"
    assert plan.fabrics["tcp-10gbe"] == "measured"


def test_a_group_of_one_rank_needs_neither_a_fabric_nor_a_grid_point():
    config = copy.deepcopy(CONFIG)
    config["workloads"]["gpt3-175b"].update(tp=1, dp=1)
    del config["workloads"]["gpt3-175b"]["tp_fabric"], config["workloads"]["gpt3-175b"]["dp_fabric"]
    check(config, REPO)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c["algorithms"].append("butterfly"), r"algorithms\[6\]: unknown algorithm"),
        (lambda c: c.update(ranks_per_node=[5]), "ranks_per_node: 5 divides none"),
        (lambda c: c["fabrics"]["ndv2"].pop("inter"), "fabrics.ndv2: a two-level fabric"),
        (lambda c: c["figures"]["structure"].update(fabric="nvlink"), "is not a two-level"),
        (lambda c: c.update(ranks=[0, 2]), "ranks: every value must be between 1 and 1024"),
        (lambda c: c.update(elements=[0]), "elements: every value must be at least 1"),
        (lambda c: c["fabrics"].update(bad={"description": "x"}), "fabrics.bad: needs exactly"),
        (lambda c: c["fabrics"].update(gone={"measurements": "no/such.txt"}),
         "fabrics.gone: .*file not found"),
        (lambda c: c["fabrics"]["tcp-10gbe"].update(table=9), "fabrics.tcp-10gbe: .*table 9"),
        (lambda c: c["figures"].update(crossover_ranks=5), "figures.crossover_ranks: 5 is not"),
        (lambda c: c["figures"]["hotspot"].update(elements=3), "figures.hotspot.elements"),
        (lambda c: c["fabrics"].update({"bad name": {"alpha": 1, "beta": 1}}), "names may use"),
        (lambda c: c["workloads"]["gpt3-175b"].update(tp=6),
         r"workloads.gpt3-175b.tp: 6 is not on the ranks axis"),
        (lambda c: c["workloads"]["gpt3-175b"].update(dp_fabric="omnipath"),
         "workloads.gpt3-175b.dp_fabric: no fabric 'omnipath' in fabrics"),
        (lambda c: c["workloads"]["gpt3-175b"].pop("tp_fabric"),
         "workloads.gpt3-175b.tp_fabric: needed when tp > 1"),
        (lambda c: c["wallclock"].update(ranks=[1]), "wallclock.ranks: every value must be betw"),
        (lambda c: c["wallclock"]["algorithms"].append("hierarchical"),
         r"wallclock.algorithms\[3\]: 'hierarchical' is not an algorithm without parameters"),
        (lambda c: c["wallclock"]["fabrics"].update(queue="ethernet"),
         "wallclock.fabrics.queue: ethernet is not a ping-pong fabric"),
        (lambda c: c["wallclock"]["fabrics"].update(queue="local-mpi"),
         "wallclock.fabrics.queue: local-mpi is measured over mpi"),
        (lambda c: c["wallclock"]["fabrics"].pop("mpi"), "no fabric calibrated for mpi"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(allreduce="no/such.txt"),
         "wallclock.clusters.abci-16.allreduce: .*file not found"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(fabric="ndv2"),
         "wallclock.clusters.abci-16.fabric: 'ndv2' is not a flat fabric"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"]["node"].update(allreduce="none.txt"),
         "wallclock.clusters.abci-16.node.allreduce: .*file not found"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].pop("library"),
         "wallclock.clusters.abci-16.node: needs library"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(ranks_per_node=32),
         "wallclock.clusters.abci-16.ranks_per_node: more than ranks"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(library="lam"),
         "wallclock.clusters.abci-16.library"),
    ],
)  # fmt: skip
def test_problems_are_named_by_key(change, message):
    config = copy.deepcopy(CONFIG)
    change(config)
    with pytest.raises(ConfigError, match=message):
        check(config, REPO)
