"""Reading osu_latency output and CSVs, and the relative least-squares alpha-beta fit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from collectives.study import fabrics
from collectives.study.fabrics import FabricError, Points

REPO = Path(__file__).resolve().parents[2]
BAIDU = REPO / "config/fabrics/baidu_10gbe_tcp_vs_40gbe_roce_osu_latency_2nodes.txt"
ABCI = REPO / "config/fabrics/abci_anode_ib_hdr_osu_multi_lat_mbw_mr_2nodes_1pair.txt"


def test_reads_the_chosen_latency_table_and_skips_bandwidth_tables():
    tcp = fabrics.read_osu_latency(BAIDU, table=1)
    roce = fabrics.read_osu_latency(BAIDU, table=2)
    assert tcp.seconds[0] == pytest.approx(22.07e-6) and roce.seconds[0] == pytest.approx(5.20e-6)
    assert tcp.nbytes[-1] == 4194304
    abci = fabrics.read_osu_latency(ABCI)  # latency table, then an osu_mbw_mr table
    assert len(abci.nbytes) == 24 and abci.seconds[-1] == pytest.approx(97.56e-6)
    with pytest.raises(FabricError, match="table 3 requested, the file has 2"):
        fabrics.read_osu_latency(BAIDU, table=3)


def test_a_stream_table_gives_the_per_message_occupancy():
    stream = fabrics.read_osu_stream(ABCI)  # osu_mbw_mr, one pair, a window of 64
    assert stream.nbytes[0] == 1 and stream.seconds[0] == pytest.approx(1 / 5.45e6)
    assert stream.seconds[-1] == pytest.approx(4194304 / 47885.84e6)
    assert fabrics.read_osu_stream(BAIDU) is None  # latency tables only
    bibw = (
        REPO
        / "config/fabrics/sigma2_olivia_slingshot11_osu_latency_bibw_host_2nodes_openmpi_cxi.txt"
    )
    assert fabrics.read_osu_stream(bibw) is None  # both directions at once: not one link's
    link = fabrics.build("abci", {"measurements": str(ABCI.relative_to(REPO))}, REPO).link
    gap, per_byte = link.occupancy
    assert 1.5e-7 < gap < 2.5e-7 and 1 / per_byte == pytest.approx(46e9, rel=0.1)
    holds = link.holds(np.array([1.0, 1 << 22]))
    assert (holds < link.times(np.array([1.0, 1 << 22]))).all()  # the rest is latency


def test_malformed_and_missing_files(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("# OSU MPI Latency Test\n# Size  Latency (us)\n0  1.5\n1  oops\n")
    with pytest.raises(FabricError, match=r"bad\.txt:4"):
        fabrics.read_measurements(bad)
    empty = tmp_path / "empty.txt"
    empty.write_text("hello\n")
    with pytest.raises(FabricError, match="no OSU latency table"):
        fabrics.read_measurements(empty)
    with pytest.raises(FabricError, match="file not found"):
        fabrics.read_measurements(tmp_path / "nope.txt")
    csv = tmp_path / "t.csv"
    csv.write_text("size,time\n1,2\n")
    with pytest.raises(FabricError, match="bytes,seconds"):
        fabrics.read_measurements(csv)
    csv.write_text("bytes,seconds\n1,2e-6\n2,-1\n")
    with pytest.raises(FabricError, match="times positive"):
        fabrics.read_measurements(csv)


def test_exact_data_is_fitted_exactly():
    nbytes = np.array([0, 1, 64, 4096, 1 << 20, 1 << 22], dtype=float)
    fit = fabrics.fit_alpha_beta(Points(nbytes, 2e-6 + nbytes * 5e-11))
    assert fit.alpha == pytest.approx(2e-6, rel=1e-9)
    assert fit.beta == pytest.approx(5e-11, rel=1e-9)
    assert fit.r_squared == pytest.approx(1.0)
    assert fit.max_rel_residual < 1e-9


def test_relative_weighting_keeps_the_latency_that_raw_least_squares_loses():
    """5% noise on large messages swamps a 2 us latency unless residuals are relative."""
    rng = np.random.default_rng(1)
    nbytes = np.array([2.0**k for k in range(0, 23)])
    truth = 2e-6 + nbytes * 1e-10
    seconds = truth * (1 + 0.05 * rng.standard_normal(len(nbytes)))
    fit = fabrics.fit_alpha_beta(Points(nbytes, seconds))
    raw_alpha, _ = np.polyfit(nbytes, seconds, 1)[::-1]
    assert abs(fit.alpha - 2e-6) < 0.1e-6
    assert abs(raw_alpha - 2e-6) > abs(fit.alpha - 2e-6)
    assert fit.alpha_ci[0] < 2e-6 < fit.alpha_ci[1]
    assert fit.beta_ci[0] < 1e-10 < fit.beta_ci[1]


def test_fabric_kinds():
    assert fabrics.kind_of({"alpha": 1e-6, "beta": 1e-9}) == "given"
    assert fabrics.kind_of({"measurements": "x.txt"}) == "measured"
    assert fabrics.kind_of({"pingpong": {"sizes": [1]}}) == "pingpong"
    two_level = {"ranks_per_node": 8, "intra": {"alpha": 1e-7, "beta": 1e-11},
                 "inter": {"measurements": "x.txt"}}  # fmt: skip
    assert fabrics.kind_of(two_level) == "structured"
    with pytest.raises(FabricError, match="exactly one of"):
        fabrics.kind_of({"description": "nothing"})
    with pytest.raises(FabricError, match="exactly one of beta or bandwidth"):
        fabrics.kind_of({"alpha": 1e-6})
    with pytest.raises(FabricError, match="also needs inter"):
        fabrics.kind_of({"ranks_per_node": 8, "intra": {"alpha": 1e-7, "beta": 1e-11}})
    with pytest.raises(FabricError, match="intra: needs alpha"):
        fabrics.kind_of({**two_level, "intra": {"alpha": 1e-7}})


def test_given_and_structured_fabrics_build_and_round_trip():
    eth = fabrics.build("eth", {"alpha": 2.5e-5, "bandwidth": 1.25e9}, REPO)
    assert eth.beta == pytest.approx(8e-10) and not eth.structured
    entry = {
        "ranks_per_node": 8,
        "nic_per_node": 1,
        "gamma": 1e-10,
        "intra": {"alpha": 3e-7, "beta": 2.3e-11},
        "inter": {"measurements": str(ABCI.relative_to(REPO))},
    }
    ndv2 = fabrics.build("ndv2", entry, REPO)
    assert ndv2.kind == "structured" and ndv2.intra.kind == "given"
    assert ndv2.link.kind == "measured" and ndv2.alpha == ndv2.link.fit.alpha
    assert ndv2.structured and ndv2.ranks_per_node == 8 and ndv2.nic_per_node == 1
    assert ndv2.intra.alpha == 3e-7 and ndv2.gamma == 1e-10
    assert [label for label, _ in ndv2.fitted()] == ["ndv2 (inter)"]
    assert fabrics.Fabric.from_dict(json.loads(json.dumps(ndv2.as_dict()))) == ndv2
    assert fabrics.measured_parts(entry) == [entry["inter"]]


OSU = "# OSU MPI Latency Test\n# Size  Latency (us)\n"


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("1 30.0\n1024 20.0\n65536 10.0\n", r"latency falls as messages grow \(.*beta=-"),
        ("1 5.0\n1024 5.0\n", "2 message sizes leave the fit no confidence intervals"),
        ("1 5.0\n1024 5.0\n65536 5.0\n4194304 5.0\n", r"hardly grows.*above 1e\+13 B/s"),
        ("1 0.1\n1024 110.0\n65536 7000.0\n", r"the fit gives alpha=-.* must be positive"),
    ],
)  # fmt: skip
def test_a_file_no_link_could_produce_is_refused_naming_it(tmp_path, rows, message):
    path = tmp_path / "osu.txt"
    path.write_text(OSU + rows)
    spec = {"measurements": "osu.txt"}
    with pytest.raises(FabricError, match=f"^{re.escape(str(path))}: .*{message}"):
        fabrics.screen_link(spec, tmp_path)  # what the config check runs
    with pytest.raises(FabricError, match=message):
        fabrics.build("weird", spec, tmp_path)  # the fabric rule says the same


def test_a_given_link_faster_than_any_is_refused():
    with pytest.raises(FabricError, match="bandwidth of 1e\\+15 B/s is above"):
        fabrics.build("typo", {"alpha": 1e-6, "bandwidth": 1e15}, REPO)
    with pytest.raises(FabricError, match="above"):
        fabrics.screen_link({"alpha": 1e-6, "beta": 1e-16}, REPO)


def test_the_quick_screen_passes_every_shipped_file_and_imports_no_statistics():
    """The config check screens every file on each Snakemake invocation: without SciPy."""
    import subprocess
    import sys

    code = (
        "import sys, yaml; from pathlib import Path; from collectives.study import fabrics\n"
        "c = yaml.safe_load(open('config/config.yaml'))\n"
        "for e in c['fabrics'].values():\n"
        "    if fabrics.kind_of(e) != 'pingpong':\n"
        "        [fabrics.screen_link(s, Path('.')) for s in fabrics.link_parts(e).values()]\n"
        "assert 'scipy' not in sys.modules"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
