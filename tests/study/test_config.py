"""The pipeline config's meaning: every problem named by its key."""

from __future__ import annotations

import copy
import importlib.machinery
import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

from collectives import registry
from collectives.study.config import ConfigError, check, read_yaml, validate_schema
from collectives.transport import TRANSPORTS

REPO = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((REPO / "config/config.yaml").read_text())
GRID_KEYS = "ranks_per_node, channels, chunk_bytes, elements"  # the algorithms' parameters
SECTIONS = "fabrics, workloads, libraries, gpu_systems, gpu_costs, wallclock, figures"


def test_the_shipped_config_is_valid():
    plan = check(CONFIG, REPO)
    assert plan.algorithms == [
        "naive", "ring", "recursive_doubling", "rabenseifner", "binomial_tree", "hierarchical-G8",
        "nccl_ring", "double_binary_tree-G8", "one_shot", "two_shot",
    ]  # fmt: skip
    hierarchical, nccl_ring, tree, one_shot = plan.variants[5:9]
    assert hierarchical.arguments() == "--algorithm hierarchical --ranks-per-node 8"
    assert [n for n in plan.ranks if hierarchical.runs_at(n)] == [8, 16, 32, 64]
    assert nccl_ring.arguments() == "--algorithm nccl_ring --channels 2 --chunk-bytes 2097152"
    assert tree.arguments() == (
        "--algorithm double_binary_tree --ranks-per-node 8 --chunk-bytes 524288"
    )  # its own chunk default, NCCL's tree chunk
    assert [n for n in plan.ranks if one_shot.runs_at(n)] == [2, 3, 4, 8]  # N <= 8, as in vLLM
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
        (lambda c: c["algorithms"].append("butterfly"), r"algorithms\[10\]: unknown algorithm"),
        (lambda c: c.update(ranks_per_node=[5]), "ranks_per_node: 5 is not at least 1 and"),
        (lambda c: c["fabrics"]["ndv2"].pop("inter"), "fabrics.ndv2: a two-level fabric"),
        (lambda c: c["fabrics"]["tcp-10gbe"].update(crossbar=True),
         "fabrics.tcp-10gbe.crossbar: applies to given link classes"),
        (lambda c: c["fabrics"]["local"].update(crossbar=True),
         "fabrics.local.crossbar: applies to given link classes"),
        (lambda c: c["fabrics"]["ndv2"].update(crossbar=True),
         "fabrics.ndv2.crossbar: give it on the fabric's intra or inter link class"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"].update(gpus_per_node=1),
         "gpu_systems.abci-a100-1node: an all-reduce needs at least 2 GPUs"),
        (lambda c: c["workloads"]["gpt3-175b"].update(gpu_system="nowhere"),
         "workloads.gpt3-175b.gpu_system: no system 'nowhere' in gpu_systems"),
        (lambda c: c["workloads"]["gpt3-175b"].update(gpu_system="aws-p5-2node"),
         "workloads.gpt3-175b.gpu_system: no system 'aws-p5-2node' in gpu_systems; did you "
         "mean aws-p5-2nodes"),
        (lambda c: c["workloads"]["gpt3-175b"].update(dp_fabric="infinband"),
         "workloads.gpt3-175b.dp_fabric: no fabric 'infinband' in fabrics; did you mean "
         "infiniband?"),
        (lambda c: c["workloads"]["gpt2-medium"].update(gpu_system="aws-p5-2nodes", tp=3),
         "workloads.gpt2-medium.tp: 3 does not divide aws-p5-2nodes's 8 GPUs of a scale-up domain"),
        (lambda c: c["workloads"]["gpt3-175b"].update(gpu_system="abci-a100-16nodes"),
         "workloads.gpt3-175b: TP x DP = 512 GPUs, 384 more than abci-a100-16nodes's 128"),
        (lambda c: c["workloads"]["llama2-70b-decode"].update(pp=32),
         "workloads.llama2-70b-decode: TP x DP x PP = 256 GPUs, 128 more than "
         "abci-a100-16nodes's 128"),
        (lambda c: c["figures"]["structure"].update(fabric="nvlink"), "is not a two-level"),
        (lambda c: c.update(ranks=[0, 2]), "ranks: every value must be between 1 and 1024"),
        (lambda c: c.update(elements=[0]), "elements: every value must be at least 1"),
        (lambda c: c["fabrics"].update(bad={"description": "x"}), "fabrics.bad: needs exactly"),
        (lambda c: c["fabrics"].update(gone={"measurements": "no/such.txt"}),
         "fabrics.gone: .*file not found"),
        (lambda c: c["fabrics"]["tcp-10gbe"].update(table=9), "fabrics.tcp-10gbe: .*table 9"),
        (lambda c: c["fabrics"].update(bad={"measurements": ".test/config/config.yaml"}),
         "fabrics.bad: .*/config.yaml: no OSU latency table"),
        (lambda c: c["figures"].update(crossover_ranks=5), "figures.crossover_ranks: 5 is not"),
        (lambda c: c["figures"]["hotspot"].update(elements=3), "figures.hotspot.elements"),
        (lambda c: c["figures"]["headline"]["fabrics"].append("nowhere"),
         r"figures.headline.fabrics\[\d\]: no fabric 'nowhere' in fabrics"),
        (lambda c: c["figures"]["headline"]["algorithms"].append("hierarchical"),
         r"figures.headline.algorithms\[3\]: 'hierarchical' is not an algorithm"),
        (lambda c: c["figures"]["headline"].update(ranks=5), "figures.headline.ranks: 5 is not"),
        (lambda c: c["fabrics"].update({"bad name": {"alpha": 1, "beta": 1}}), "names may use"),
        (lambda c: c["workloads"]["gpt3-175b"].update(tp=6),
         r"workloads.gpt3-175b.tp: 6 is not on the ranks axis"),
        (lambda c: c["workloads"]["gpt3-175b"].update(dp_fabric="omnipath"),
         "workloads.gpt3-175b.dp_fabric: no fabric 'omnipath' in fabrics"),
        (lambda c: c["workloads"]["gpt3-175b"].pop("tp_fabric"),
         "workloads.gpt3-175b.tp_fabric: needed when tp > 1"),
        (lambda c: c["wallclock"].update(ranks=[1]), "wallclock.ranks: every value must be betw"),
        (lambda c: c["wallclock"]["algorithms"].append("hierarchical"),
         r"wallclock.algorithms\[3\]: 'hierarchical' is not an algorithm that runs at its "
         "defaults"),
        (lambda c: c["wallclock"]["fabrics"].update(queue="ethernet"),
         "wallclock.fabrics.queue: ethernet is not a ping-pong fabric"),
        (lambda c: c["wallclock"]["fabrics"].update(queue="local-mpi"),
         "wallclock.fabrics.queue: local-mpi is measured over mpi"),
        (lambda c: c["wallclock"]["fabrics"].pop("mpi"), "no fabric calibrated for mpi"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(allreduce="no/such.txt"),
         "wallclock.clusters.abci-16.allreduce: .*file not found"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(fabric="ndv2"),
         "wallclock.clusters.abci-16.fabric: no flat fabric 'ndv2' in fabrics; valid: "),
        (lambda c: c["wallclock"]["clusters"]["abci-16"]["node"].update(allreduce="none.txt"),
         "wallclock.clusters.abci-16.node.allreduce: .*file not found"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].pop("library"),
         "wallclock.clusters.abci-16.node: needs library"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(ranks_per_node=32),
         "wallclock.clusters.abci-16.ranks_per_node: more than ranks"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(library="lam"),
         "wallclock.clusters.abci-16.library"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"].update(inter_fabric="ndv2"),
         "gpu_systems.abci-a100-1node.inter_fabric: no flat fabric 'ndv2' in fabrics"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"].update(nodes=2),
         "gpu_systems.abci-a100-1node: the log ran 8 ranks on 1 hosts, the entry says 16 on 2"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"]["accelerator"].update(model="V100"),
         "gpu_systems.abci-a100-1node.accelerator.model: the log ran on A100-SXM4-40GB"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"]["accelerator"].update(vendor="amd"),
         "gpu_systems.abci-a100-1node.library.name: nccl runs on nvidia GPUs, the accelerator "
         "is amd's"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"]["accelerator"].update(generation="sm_95"),
         "gpu_systems.abci-a100-1node.accelerator.generation: sm_95 is not a generation nccl "
         "runs on"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"]["cpu"].update(arch="arm64"),
         "gpu_systems.abci-a100-1node.cpu: amd builds no arm64 CPU the model knows"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"]["scale_out"].update(gpus_per_nic=1),
         "gpu_systems.abci-a100-1node.scale_out.gpus_per_nic: 4 NICs serving 1 GPUs each are "
         "4 GPUs, the node has 8"),
        (lambda c: c["gpu_systems"]["abci-a100-16nodes"]["scale_up"].update(gpus=12),
         "gpu_systems.abci-a100-16nodes.scale_up.gpus: a domain of 12 GPUs does not hold "
         "whole nodes of 8"),
        (lambda c: c["gpu_systems"]["abci-a100-16nodes"]["scale_up"].update(gpus=48),
         "gpu_systems.abci-a100-16nodes.nodes: 128 GPUs do not fill whole scale-up domains "
         "of 48"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"]["library"].update(name="rccl"),
         "gpu_systems.abci-a100-1node.library.name: rccl runs on amd GPUs, the accelerator is "
         "nvidia's"),
        (lambda c: c["gpu_systems"]["abci-a100-1node"]["library"].update(name="oneccl"),
         "gpu_systems.abci-a100-1node.library.name: oneccl has no model .modelled: nccl, rccl."),
        (lambda c: c["gpu_systems"]["abci-a100-1node"].update(log="missing.txt"),
         "gpu_systems.abci-a100-1node.log: .*missing.txt: file not found"),
        (lambda c: c["wallclock"]["clusters"]["oci-144"].update(intra_fabric="ndv2"),
         "wallclock.clusters.oci-144.intra_fabric: no flat fabric 'ndv2' in fabrics"),
        (lambda c: c["figures"].update(nccl_choice={"system": "nowhere"}),
         "figures.nccl_choice.system: no system 'nowhere' in gpu_systems"),
        (lambda c: c["figures"].update(nccl_choice={"system": "abci-a100-1node", "nodes": [1, 0]}),
         r"figures.nccl_choice.nodes\[1\]: 0 nodes hold no GPU pair"),
    ],
)  # fmt: skip
def test_problems_are_named_by_key(change, message):
    config = copy.deepcopy(CONFIG)
    change(config)
    with pytest.raises(ConfigError, match=message):
        check(config, REPO)


SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (lambda c: c["fabrics"]["infiniband"].update(alpha=-2.6e-6),
         "fabrics.infiniband.alpha: must be greater than 0, got -2.6e-06"),
        (lambda c: c["fabrics"]["ethernet"].update(bandwidth=0),
         "fabrics.ethernet.bandwidth: must be greater than 0, got 0"),
        (lambda c: c.update(timeout=0), "timeout: must be greater than 0, got 0"),
        (lambda c: c.update(dtypes=["int8"]),
         "dtypes[0]: 'int8' is not one of float64, float32, float16, int64, int32"),
        (lambda c: c.update(data="foo"), "data: 'foo' is not one of int, normal"),
        (lambda c: c.update(elements={"start": 1, "stop": 64, "factor": 1}),
         "elements.factor: must be at least 2, got 1"),
        (lambda c: c.update(elements=[]), "elements: must not be empty"),
        (lambda c: c["fabrics"]["infiniband"].update(alpha="fast"),
         "fabrics.infiniband.alpha: must be a number, got 'fast'"),
        (lambda c: c.update(elements="many"), "elements: 'many' is not a list of values, or a "
         "geometric range start, start*factor, ... <= stop"),
        (lambda c: c["fabrics"]["local"]["pingpong"].pop("sizes"),
         "fabrics.local.pingpong.sizes: required, missing"),
        (lambda c: c.pop("figures"), "figures: required, missing"),
        (lambda c: c["wallclock"].update(peers=["nccl"]),
         "wallclock.peers[0]: 'nccl' is not one of mpi, gloo"),
        (lambda c: c.update(sed=1), "sed: unknown key; did you mean seed? valid: algorithms, "
         f"ranks, {GRID_KEYS}, dtypes, dtype, seed, data, timeout, {SECTIONS}"),
        (lambda c: c["figures"].update(dtype="float64"), "figures.dtype: moved to the top-level "
         "key dtype (the one dtype the figures, the workloads, the selections and the timed runs "
         "use)"),
        (lambda c: c.update(zzz=1), f"zzz: unknown key; valid: algorithms, ranks, {GRID_KEYS}, "
         f"dtypes, dtype, seed, data, timeout, {SECTIONS}"),
        # a misspelt required key: the unknown key is named, not the required one as missing
        (lambda c: c.update(rank=c.pop("ranks")), "rank: unknown key; did you mean ranks? "
         f"valid: algorithms, ranks, {GRID_KEYS}, dtypes, dtype, seed, data, timeout, "
         f"{SECTIONS}"),
        (lambda c: c["fabrics"]["nvlink"].update(alpah=1),
         "fabrics.nvlink.alpah: unknown key; did you mean alpha? valid: alpha, beta, bandwidth, "
         "measurements, format, table, bandwidth_table, max_fit_error, pingpong, ranks_per_node, "
         "intra, inter, nic_per_node, rails, gamma, crossbar, description, source"),
        (lambda c: c["fabrics"]["ndv2"]["intra"].update(bandwith=1),
         "fabrics.ndv2.intra.bandwith: unknown key; did you mean bandwidth? valid: alpha, beta, "
         "bandwidth, measurements, format, table, bandwidth_table, max_fit_error, crossbar"),
        (lambda c: c["workloads"]["gpt3-175b"].update(hiden=1),
         "workloads.gpt3-175b.hiden: unknown key; did you mean hidden? valid: hidden, sequence, "
         "micro_batch, micro_batches, layers, parameters, dtype_bytes, tp, dp, pp, bucket, "
         "backward, "
         "tp_fabric, dp_fabric, gpu_system"),
        (lambda c: c["wallclock"]["clusters"]["abci-16"].update(nic_per_nod=1),
         "wallclock.clusters.abci-16.nic_per_nod: unknown key; did you mean nic_per_node? valid: "
         "fabric, allreduce, table, ranks, ranks_per_node, nic_per_node, cores_per_node, library, "
         "node, itemsize, intra_fabric, description, source"),
    ],
)  # fmt: skip
def test_schema_violations_are_one_line_naming_the_key(change, line):
    config = copy.deepcopy(CONFIG)
    change(config)
    with pytest.raises(ConfigError) as caught:
        validate_schema(config, SCHEMA)
    assert str(caught.value) == line


def test_the_shipped_configs_meet_the_schema():
    for config in ("config", ".test/config", ".test/config-cluster"):
        shipped = read_yaml(REPO / config / "config.yaml")
        validate_schema(shipped, SCHEMA)  # raises ConfigError on any violation
        with pytest.raises(ConfigError, match="seeds"):  # and it is checked: a spoilt copy fails
            validate_schema(shipped | {"seeds": 1}, SCHEMA)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("seed: 0\nfabrics:\n  x: {alpha: 1\n  y: 2\n", "line 4: expected ',' or '}', but got ':'"),
        ("seed: 0\ndata: int: 1\n", "line 2: mapping values are not allowed here"),
        ("fabrics:\n\t- x\n", "line 2: found character '\\t' that cannot start any token"),
    ],
)  # fmt: skip
def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path, text, line):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_yaml(path)
    assert str(caught.value) == f"{path} {line}"


OSU = "# OSU MPI Latency Test\n# Size  Latency (us)\n"


@pytest.mark.parametrize(
    ("entry", "rows", "line"),
    [
        ({"measurements": "{file}"}, "1 30.0\n1024 20.0\n65536 10.0\n",
         r"fabrics.odd: {file}: the latency falls as messages grow \(the fit gives "
         r"beta=-2.02e-10 s/B\); it must be positive"),
        ({"measurements": "{file}"}, "1 5.0\n1048576 5.0\n",
         r"fabrics.odd: {file}: 2 message sizes leave the fit no confidence intervals; "
         r"measure at least 3"),
        ({"ranks_per_node": 2, "intra": {"measurements": "{file}"},
          "inter": {"alpha": 1e-6, "beta": 1e-10}}, "1 2.0\n1024 2.0\n1048576 2.0\n",
         r"fabrics.odd.intra: {file}: the time hardly grows with the size: the fit gives "
         r"beta=\S+ s/B, a bandwidth above 1e\+13 B/s \(10 TB/s\), more than any link carries"),
        ({"measurements": "{file}"}, "1 1.0\n1024 oops\n",
         r"fabrics.odd: {file}:4: expected 'size latency_us', got '1024 oops'"),
        ({"alpha": 1e-6, "bandwidth": 1e15}, "",
         r"fabrics.odd: a bandwidth of 1e\+15 B/s is above 1e\+13 B/s \(10 TB/s\), more than "
         r"any link carries \(beta is in seconds per byte, bandwidth in bytes/s\)"),
    ],
)  # fmt: skip
def test_a_fabric_file_that_gives_no_link_stops_the_check(tmp_path, entry, rows, line):
    """Parsed and fitted before any job: the fabric, the file and why, in one line."""
    file = tmp_path / "osu.txt"
    file.write_text(OSU + rows)
    config = copy.deepcopy(CONFIG)
    config["fabrics"]["odd"] = json.loads(json.dumps(entry).replace("{file}", str(file)))
    with pytest.raises(ConfigError) as caught:
        check(config, REPO)
    assert re.fullmatch(line.replace("{file}", re.escape(str(file))), str(caught.value))


def test_a_ping_pong_needs_three_sizes():
    config = copy.deepcopy(CONFIG)
    config["fabrics"]["local"]["pingpong"]["sizes"] = [1, 1024]
    with pytest.raises(ConfigError, match=r"^fabrics\.local\.pingpong\.sizes: 2 sizes leave"):
        check(config, REPO)


def test_peers_are_the_config_s_choice_and_must_be_installed(monkeypatch):
    config = copy.deepcopy(CONFIG)
    config["wallclock"]["peers"] = ["mpi", "gloo"]
    real = importlib.util.find_spec
    torch = importlib.machinery.ModuleSpec("torch", None)  # installed or not, as if it were
    monkeypatch.setattr(importlib.util, "find_spec", lambda n: torch if n == "torch" else real(n))
    plan = check(config, REPO)
    assert plan.wallclock.peers_for("mpi") == ["mpi", "gloo"]
    assert plan.wallclock.peers_for("queue") == ["gloo"]
    assert check(CONFIG, REPO).wallclock.peers_for("queue") == []  # the default: mpi only
    monkeypatch.setattr(importlib.util, "find_spec", lambda n: None if n == "torch" else real(n))
    with pytest.raises(ConfigError) as caught:
        check(config, REPO)
    assert str(caught.value) == (
        "wallclock.peers: gloo needs torch, not installed here: pip install -e '.[gloo]', "
        "or remove gloo from the list"
    )
    config = copy.deepcopy(CONFIG)
    config["wallclock"].update(peers=["mpi"], transports=["queue"], fabrics={"queue": "local"})
    with pytest.raises(ConfigError, match=r"^wallclock\.peers: mpi .* runs on the mpi transport"):
        check(config, REPO)


# A latency table whose best line misses its 8 KiB point by 66%
OSU_LATENCY = (
    "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n"
    "1 2.0\n1024 2.1\n8192 9.0\n65536 12.0\n1048576 100.0\n"
)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (OSU_LATENCY.encode("utf-16-le"), "a NUL byte at offset 1: UTF-16 without a byte-order "
         "mark or not a text file; save it as UTF-8"),
        ((OSU_LATENCY + OSU_LATENCY.replace("v5.8", "v7.1")).encode(), "2 latency tables; choose "
         "one with table: 1 = '# OSU MPI Latency Test v5.8' (5 rows); 2 = '# OSU MPI Latency "
         "Test v7.1' (5 rows)"),
    ],
    ids=["utf-16-without-mark", "two-tables"],
)  # fmt: skip
def test_a_measurement_file_s_problem_names_the_fabric_and_the_file(tmp_path, content, reason):
    (tmp_path / "mine.txt").write_bytes(content)
    config = copy.deepcopy(CONFIG)
    config["fabrics"]["mine"] = {"measurements": str(tmp_path / "mine.txt")}
    with pytest.raises(ConfigError) as caught:
        check(config, REPO)
    assert str(caught.value) == f"fabrics.mine: {tmp_path / 'mine.txt'}: {reason}"


def test_odd_but_readable_files_are_read_and_rough_fits_warned(tmp_path):
    (tmp_path / "utf16.txt").write_bytes(OSU_LATENCY.encode("utf-16"))
    (tmp_path / "latin1.txt").write_bytes(b"# h\xf4te\n" + OSU_LATENCY.encode())
    config = copy.deepcopy(CONFIG)
    for name in ("utf16", "latin1"):
        config["fabrics"][name] = {"measurements": str(tmp_path / f"{name}.txt")}
    plan = check(config, REPO)
    assert plan.fabrics["utf16"] == plan.fabrics["latin1"] == "measured"
    assert [w for w in plan.warnings if w.startswith("fabrics.")] == [
        f"fabrics.{name}: {tmp_path / f'{name}.txt'}: the fitted line α + β·n misses the measured "
        "time at 8192 B by 66%, beyond the 50% a fit may miss: its α-β costs are rough "
        "(max_fit_error: 0.7 accepts it)"
        for name in ("utf16", "latin1")
    ]
    config["fabrics"]["utf16"]["max_fit_error"] = 0.7
    fitted = [w for w in check(config, REPO).warnings if w.startswith("fabrics.")]
    assert len(fitted) == 1  # accepted: no word about it
    assert check(CONFIG, REPO).warnings == [  # the shipped config accepts its rough fits;
        # what it guesses of its GPU systems is said, one line a guess
        "gpu_systems.gcp-a3mega-2nodes: no NCCL release named (entry or log); priced with "
        "2.20.3, the first modelled for sm_90",
        "gpu_systems.gcp-a3mega-2nodes.scale_out.kind: no latency measured for tcpxo; its "
        "network steps are priced at infiniband's, as the tables are",
        *(f"gpu_systems.{name}: NCCL {named} is not modelled; priced with 2.28.9, the nearest "
          "modelled release" for name, named in (("dell-h200-roce-2nodes", "2.30.4"),
                                                 ("oci-gb200-32trays", "2.29.2"))),
        *(f"gpu_systems.{name}: NCCL 2.26.2 is not modelled; priced with 2.25.1, the nearest "
          "modelled release" for name in ("coreweave-gb200-nvl72", "coreweave-gb200-2racks")),
        *(line for name in ("amd-mi300x-1node", "amd-aac10-mi300x-2nodes") for line in (
            f"gpu_systems.{name}: RCCL 2.22.3 is not modelled; priced with 2.21.5, the nearest "
            "modelled release",
            f"gpu_systems.{name}: no per-call floor measured for any rccl GPU; priced without "
            "one")),
    ]  # fmt: skip


def test_the_one_dtype_is_one_of_the_grid_s():
    assert check(CONFIG, REPO).dtype == "float64"
    config = copy.deepcopy(CONFIG)
    del config["dtype"]
    config["dtypes"] = ["float32", "float64"]
    assert check(config, REPO).dtype == "float32"  # the first, without the key
    config["dtype"] = "int32"
    with pytest.raises(ConfigError) as caught:
        check(config, REPO)
    assert str(caught.value) == "dtype: int32 is not one of dtypes ['float32', 'float64']"


def test_every_algorithm_parameter_is_an_axis_of_the_grid():
    properties = read_yaml(REPO / "workflow/schemas/config.schema.yaml")["properties"]
    for name in registry.parameters_by_name():
        assert properties[name]["$ref"] == "#/$defs/axis", name


def test_the_nccl_choice_map_defaults_to_the_largest_system_the_model_prices():
    choice = check(copy.deepcopy(CONFIG), REPO).figures["nccl_choice"]
    assert choice["system"] == "abci-a100-16nodes"  # most nodes of a release with constants
    assert choice["nodes"] == [1, 2, 4, 8, 16]
    assert choice["message_bytes"][0] == 8 and choice["message_bytes"][-1] == 512 * 2**20


def test_the_schema_names_the_transports_the_package_has():
    enums = []

    def walk(node, key=""):
        if isinstance(node, dict):
            if key in ("transport", "transports"):
                enums.append(tuple(node.get("enum") or node.get("items", {}).get("enum", ())))
            for name, value in node.items():
                walk(value, name)

    walk(yaml.safe_load(SCHEMA.read_text()))
    assert len(enums) == 2 and set(enums) == {TRANSPORTS}
