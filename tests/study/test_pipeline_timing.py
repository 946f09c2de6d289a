"""Where the pipeline's time goes: benchmark files summed per rule."""

from __future__ import annotations

import pytest

from collectives.study.pipeline_timing import pipeline_timing, timing_line

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def write(path, seconds, rss="10.5"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{seconds}\t0:00:00\t{rss}\t1\t1\t1\t0\t0\t0\t0\n")


def test_jobs_are_summed_per_rule_costliest_first(tmp_path):
    write(tmp_path / "measure/float64/ring/N2_M8.tsv", 0.5)
    write(tmp_path / "measure/float64/ring/N4_M8.tsv", 1.5, rss="40")
    write(tmp_path / "measure/float64/naive/N2_M8.tsv", 1.0)
    write(tmp_path / "aggregate.tsv", 6.0, rss="-")
    table = pipeline_timing(tmp_path)
    assert list(table.rule) == ["aggregate", "measure"]
    measure = table.set_index("rule").loc["measure"]
    assert measure.jobs == 3 and measure.total_s == pytest.approx(3.0)
    assert measure.median_s == pytest.approx(1.0) and measure.max_s == pytest.approx(1.5)
    assert measure.peak_rss_mb == pytest.approx(40)
    assert measure.share == pytest.approx(1 / 3, abs=1e-3)
    assert "4 jobs took 9.0 s" in timing_line(table) and "aggregate 67%" in timing_line(table)


def test_no_benchmarks_give_an_empty_table(tmp_path):
    assert pipeline_timing(tmp_path).empty
    assert timing_line(pipeline_timing(tmp_path)).startswith("No job")
