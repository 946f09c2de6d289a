"""nccl-tests and rccl-tests logs: the shipped ones as they are, and the shapes they come in."""

# ruff: noqa: E501  (nccl-tests lines are as wide as the tool prints them)
from __future__ import annotations

from pathlib import Path

import pytest

from collectives.study.fabrics import FabricError
from collectives.study.nccl_tests import read_nccl_tests

LOGS = Path(__file__).resolve().parents[2] / "config/fabrics"


@pytest.mark.parametrize(
    ("name", "sizes", "ranks", "nodes", "largest_busbw"),
    [
        ("abci_anode_nccl_allreduce_8xA100_nvswitch_1node.txt", 24, 8, 1, 158.41),
        ("abci_anode_nccl_allreduce_16xA100_ib_hdr_2nodes.txt", 24, 16, 2, 33.34),
        ("abci_anode_nccl_allreduce_128xA100_ib_hdr_16nodes.txt", 24, 128, 16, 26.63),
        ("aws_p4de_a100_efa400g_nccl_allreduce_16gpus_2nodes.txt", 29, None, None, 78.33),
        ("aws_p5_h100_efa3200g_nccl_allreduce_16gpus_2nodes.txt", 32, None, None, 487.09),
        ("gcp_a3mega_h100_tcpxo_nccl_allreduce_16gpus_2nodes.txt", 31, 16, 2, 338.82),
        ("redhat_dell_h200_spectrumx_roce400g_nccl_allreduce_16gpus_2nodes.txt", 25, 16, 2, 485.66),
        ("oci_gb200_v3_mnnvl_nccl_allreduce_128gpus_32trays_2racks.txt", 33, None, None, 683.57),
        ("coreweave_gb200_nvl72_nccl_allreduce_72gpus_1rack.txt", 5, None, None, 834.57),
        ("coreweave_gb200_nvl72_nccl_allreduce_144gpus_2racks.txt", 6, None, None, 810.41),
        ("amd_mi300x_xgmi_rccl_allreduce_8gpus_1node.txt", 32, 8, 1, 318.98),
        ("amd_aac10_mi300x_roce_rccl_allreduce_16gpus_2nodes.txt", 32, 16, 2, 357.46),
    ],
)
def test_every_shipped_log_reads(name, sizes, ranks, nodes, largest_busbw):
    log = read_nccl_tests(LOGS / name)
    assert len(log.rows) == sizes and (log.ranks, log.nodes) == (ranks, nodes)
    assert (
        log.rows.bytes.is_monotonic_increasing and (log.rows["count"] * 4 == log.rows.bytes).all()
    )
    assert log.rows.out_of_place_busbw_GBps.iloc[-1] == largest_busbw
    assert (log.rows.out_of_place_s > 0).all() and (log.rows.in_place_s > 0).all()


def test_settings_of_several_words_are_read():
    log = read_nccl_tests(LOGS / "gcp_a3mega_h100_tcpxo_nccl_allreduce_16gpus_2nodes.txt")
    assert (log.settings["warmup iters"], log.settings["iters"], log.settings["agg iters"]) == (
        5,
        20,
        1,
    )


def test_the_header_blocks_are_read(tmp_path):
    log = read_nccl_tests(LOGS / "abci_anode_nccl_allreduce_8xA100_nvswitch_1node.txt")
    assert log.settings["iters"] == 100 and log.settings["minBytes"] == 4
    assert log.gpus == ["A100-SXM4-40GB"] * 8 and log.hosts == ["a0048"] * 8
    assert log.average_busbw_GBps == pytest.approx(21.2687)
    first = log.rows.iloc[0]
    assert (first.bytes, first.type, first.redop) == (4, "float", "sum")
    assert first.out_of_place_s == pytest.approx(17.29e-6) and first.in_place_s == pytest.approx(
        17.15e-6
    )


SRUN = """\
0: # nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20
0: #  Rank  0 Group  0 Pid   11 on node-a device  0 [0000:04:00] NVIDIA H100 80GB HBM3
0: #  Rank  1 Group  0 Pid   12 on node-b device  0 [0000:04:00] NVIDIA H100 80GB HBM3
0: #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
0:            8             2     float     sum      -1    164.3    0.00    0.00      0    163.3    0.00    0.00      0
0:           16             4     float     sum      -1    161.4    0.00    0.00      0    160.6    0.00    0.00      0
0: # Avg bus bandwidth    : 0.001
"""


def test_srun_labels_a_root_column_and_groups_are_read(tmp_path):
    path = tmp_path / "srun.txt"
    path.write_text(SRUN)
    log = read_nccl_tests(path)
    assert list(log.rows.bytes) == [8, 16] and log.rows.in_place_s.iloc[1] == pytest.approx(
        160.6e-6
    )
    assert (log.ranks, log.nodes, log.average_busbw_GBps) == (2, 2, 0.001)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (SRUN.replace("161.4", "fast"), r"srun.txt:6: 'fast' is not a number"),
        (
            SRUN.replace("    0    160.6", "    160.6"),
            r"srun.txt:6: 12 fields where the header has 13",
        ),
        ("\n".join(SRUN.splitlines()[4:]), r"srun.txt:1: a row before the column header"),
        ("# nThread 1\n", r"srun.txt: no nccl-tests rows"),
        (SRUN.replace("Rank  1", "Rank  3"), r"lists ranks \[0, 3\], not 0..N-1"),
        (SRUN.replace("4     float", "4     fp9"), r"srun.txt:6: unknown type 'fp9'; known: int8"),
        (
            SRUN.replace("4     float     sum", "4     float     max"),
            r"srun.txt: one reduction operation a log, found max, sum",
        ),
    ],
)
def test_a_bad_log_is_named_with_its_line(tmp_path, text, message):
    path = tmp_path / "srun.txt"
    path.write_text(text)
    with pytest.raises(FabricError, match=message):
        read_nccl_tests(path)


def test_the_library_release_a_log_names_is_read(tmp_path):
    rows = ("#       size         count    type   redop     time   algbw   busbw  error     time"
            "   algbw   busbw  error\n           8             2   float     sum    20.00    0.00"
            "    0.00  0e+00    20.00    0.00    0.00  0e+00\n")  # fmt: skip
    cases = {
        "# nccl-tests version 2.13.9 nccl-headers=21903 nccl-library=22005\n": ("nccl", "2.20.5"),
        "host:1:1 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n": ("nccl", "2.18.5"),
        "# RCCL version 2.22.3+hip6.4\n": ("rccl", "2.22.3"),
        "rccl-tests: Version develop:448c4c7\nRCCL version : 2.22.3-develop:f5b15f2\n"
        "HIP version  : 6.3.42131-fa1d09cbd\nROCm version : 6.3.0.0-39-ce2be3b\n"
        "Hostname     : host\nLibrccl path : /opt/rocm/lib/librccl.so.1\n": ("rccl", "2.22.3"),
        "": None,
    }
    for header, named in cases.items():
        (tmp_path / "log.txt").write_text(header + rows)
        assert read_nccl_tests(tmp_path / "log.txt").library == named
    (tmp_path / "log.txt").write_text("x NCCL INFO NCCL version 2.18.5\n# NCCL version 2.19.3\n"
                                      + rows)  # fmt: skip
    with pytest.raises(FabricError, match="more than one library release"):
        read_nccl_tests(tmp_path / "log.txt")
