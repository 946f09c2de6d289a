"""Reading osu_latency output and CSVs, and the relative least-squares alpha-beta fit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from collectives.study import fabrics
from collectives.study.fabrics import FabricError, Points, read_csv_points, read_osu_latency

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
    both = fabrics.read_osu_stream(bibw)  # osu_bibw: its MB/s are both directions' sum
    assert both.nbytes[0] == 1 and both.seconds[0] == pytest.approx(2 / 2.87e6)
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
    with pytest.raises(FabricError, match="is not a positive time or rate"):
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


OSU_LATENCY = (
    "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n1 2.0\n1024 3.0\n65536 12.0\n"
)
OSU_BW = (
    "# OSU MPI Bandwidth Test v5.8\n# Size      Bandwidth (MB/s)\n1 5.0\n1024 900.0\n65536 9000.0\n"
)


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.encode("utf-16"),  # with its byte-order mark
        lambda text: text.encode("utf-8-sig"),
        lambda text: ("# run on h\xf4te-1\n" + text).encode("latin-1"),  # a Latin-1 comment
    ],
    ids=["utf-16", "utf-8-bom", "latin-1-comment"],
)
def test_a_measurement_file_is_decoded_by_one_rule(tmp_path, encode):
    path = tmp_path / "osu.txt"
    path.write_bytes(encode(OSU_LATENCY))
    points = fabrics.read_osu_latency(path)
    assert points.nbytes.tolist() == [1, 1024, 65536]
    assert points.seconds == pytest.approx([2e-6, 3e-6, 12e-6])


def test_a_file_that_is_no_text_is_named_with_the_offset(tmp_path):
    path = tmp_path / "osu.txt"
    path.write_bytes(OSU_LATENCY.encode("utf-16-le"))  # no byte-order mark
    with pytest.raises(FabricError) as caught:
        fabrics.read_osu_latency(path)
    assert str(caught.value) == (
        f"{path}: a NUL byte at offset 1: UTF-16 without a byte-order mark or not a text file; "
        "save it as UTF-8"
    )


def test_several_tables_need_to_be_chosen(tmp_path):
    path = tmp_path / "osu.txt"
    path.write_text(OSU_LATENCY + OSU_BW + OSU_LATENCY.replace("v5.8", "v7.1") + OSU_BW)
    with pytest.raises(FabricError) as caught:
        fabrics.read_osu_latency(path)
    assert str(caught.value) == (
        f"{path}: 2 latency tables; choose one with table: 1 = '# OSU MPI Latency Test v5.8' "
        "(3 rows); 2 = '# OSU MPI Latency Test v7.1' (3 rows)"
    )
    with pytest.raises(FabricError, match=r"2 bandwidth tables; choose one with bandwidth_table"):
        fabrics.read_osu_stream(path)
    assert fabrics.read_osu_latency(path, 2).seconds[0] == pytest.approx(2e-6)
    # the occupancy follows bandwidth_table, not table
    (tmp_path / "two.txt").write_text(OSU_LATENCY + OSU_BW + OSU_BW.replace("5.0", "10.0"))
    spec = {"measurements": "two.txt", "bandwidth_table": 2}
    stream = fabrics._read_link(spec, tmp_path)[2]
    assert stream.seconds[0] == pytest.approx(1 / 10e6)
    with pytest.raises(FabricError, match="bandwidth_table 3 requested, the file has 2"):
        fabrics._read_link({**spec, "bandwidth_table": 3}, tmp_path)


def test_a_rough_fit_is_warned_in_one_line_unless_accepted(tmp_path):
    path = tmp_path / "osu.txt"
    path.write_text("# Size  Latency (us)\n1 2.0\n1024 2.1\n8192 9.0\n65536 12.0\n1048576 100.0\n")
    warning = fabrics.screen_link({"measurements": "osu.txt"}, tmp_path)
    assert re.fullmatch(
        rf"{path}: the fitted line α \+ β·n misses the measured time at 8192 B by 6\d%, beyond "
        r"the 50% a fit may miss: its α-β costs are rough \(max_fit_error: 0\.\d+ accepts it\)",
        warning,
    ), warning
    accepted = float(warning.rsplit("max_fit_error: ", 1)[1].split()[0])
    assert (
        fabrics.screen_link({"measurements": "osu.txt", "max_fit_error": accepted}, tmp_path)
        is None
    )
    exact = tmp_path / "exact.txt"
    exact.write_text("# Size  Latency (us)\n1 2.0\n1024 3.0\n2048 4.0\n")
    assert fabrics.screen_link({"measurements": "exact.txt"}, tmp_path) is None


def test_a_fabric_fitted_during_the_run_is_warned_the_same_way(tmp_path):
    pingpong = tmp_path / "pingpong.csv"
    pingpong.write_text(
        "bytes,seconds\n1,2e-6\n1024,2.1e-6\n8192,9e-6\n65536,12e-6\n1048576,1e-4\n"
    )
    entry = {"pingpong": {"sizes": [1, 1024, 8192, 65536, 1048576]}}
    fabric = fabrics.build("mine", entry, tmp_path, pingpong)
    warning = fabrics.run_fit_warning("mine", entry, fabric)
    assert warning.startswith("fabrics.mine: the fitted line α + β·n misses the measured time")
    assert fabrics.run_fit_warning("mine", {**entry, "max_fit_error": 0.9}, fabric) is None


@pytest.mark.parametrize(
    ("row", "message"),
    [("-8   1.6", ":4: a message size of -8 bytes; sizes are >= 0"),
     ("8   0", ":4: 0 is not a positive time or rate"),
     ("8   nan", ":4: nan is not a positive time or rate")],
)  # fmt: skip
def test_a_bad_row_of_a_measurement_is_named_by_file_and_line(tmp_path, row, message):
    osu = tmp_path / "osu.txt"
    osu.write_text(f"# OSU MPI Latency Test v5.7\n# Size  Latency (us)\n1   1.5\n{row}\n16  1.7\n")
    with pytest.raises(FabricError, match=re.escape(f"{osu}{message}")):
        read_osu_latency(osu)
    csv_file = tmp_path / "points.csv"
    csv_file.write_text("bytes,seconds\n1,1e-6\n2,2e-6\n" + row.replace("   ", ",") + "\n")
    with pytest.raises(FabricError, match=re.escape(f"{csv_file}{message}")):
        read_csv_points(csv_file)
