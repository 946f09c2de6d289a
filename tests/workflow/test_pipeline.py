"""End to end: the Snakemake pipeline on the tiny .test config, in a scratch copy.

Runs the workflow once (module fixture) and checks every table, the seed's rows, every
figure, the report, incremental re-runs, config errors before any job, and the lint.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
import yaml

from collectives.model import ladder
from collectives.run import libraries
from collectives.run.libraries import mpich
from collectives.run.probe import observe
from collectives.study import paths, selection, tuning
from tests.support.exports import read_mpich_json, read_open_mpi_rules
from tests.support.workflow import CONSOLE, PNG, REPO, SNAKEMAKE, copy_workflow, snakemake

TABLES = [name for names in paths.TABLES.values() for name in names]  # a full config's
LIBRARIES = ["mpich", "openmpi"]  # those of the .test config


def test_every_table_is_written(workdir):
    for name in TABLES:
        assert (workdir / "results/tables" / name).stat().st_size > 0, name
    measurements = pd.read_csv(workdir / "results/tables/measurements.csv")
    # 8 algorithms at every N and M; hierarchical-G2 and double_binary_tree-G2 at N = 2 and 8
    assert len(measurements) == 8 * 4 * 4 + 2 * 2 * 4
    assert measurements.verified.all() and measurements.matches_theory.all()
    assert set(measurements.algorithm) >= {
        "ring", "hierarchical-G2", "nccl_ring", "double_binary_tree-G2", "one_shot",
    }  # fmt: skip
    costs = pd.read_csv(workdir / "results/tables/costs.csv")
    assert set(costs.fabric) == {"infiniband", "ethernet", "ib-hdr-abci", "roce-40gbe",
                                 "csv-example", "two-level", "local", "local-mpi",
                                 "local-openmpi", "shm-xeon"}  # fmt: skip


def test_times_are_replayed_and_equal_the_closed_form_on_flat_fabrics(workdir):
    costs = pd.read_csv(workdir / "results/tables/costs.csv")
    fabrics = pd.read_csv(workdir / "results/tables/fabrics.csv").set_index("fabric")
    assert (fabrics.loc[["local", "local-mpi"], "gamma_s_per_element"] > 0).all()  # measured
    # Open MPI's own Send/Recv, without this project's endpoint: a smaller 1-byte latency
    one_byte = {
        name: pd.read_csv(workdir / f"results/pingpong/{name}.csv").set_index("bytes").seconds[1]
        for name in ("local-openmpi", "local-mpi")
    }
    assert one_byte["local-openmpi"] < one_byte["local-mpi"]
    plain = fabrics[(fabrics.gamma_s_per_element == 0) & (fabrics.kind != "structured")].index
    flat = costs[costs.fabric.isin(plain)]
    assert (abs(flat.time_s - flat.closed_form_s) <= 1e-9 * flat.closed_form_s.clip(1e-30)).all()
    local = costs[(costs.fabric == "local") & (costs.ranks > 1)]
    assert (local.time_s > local.closed_form_s).all()  # gamma adds the reductions' time
    assert pd.read_csv(workdir / "results/tables/replay_vs_closed_form.csv").empty
    structured = costs[(costs.fabric == "two-level") & (costs.ranks == 8)]
    assert (structured.time_s != structured.closed_form_s).any()  # structure shows
    for record in (workdir / "results/runs").rglob("*.json"):
        assert record.with_suffix("").with_suffix(".trace.npz").exists()


def test_the_seed_rows_are_exact(workdir):
    text = (workdir / "results/tables/seed_check.md").read_text()
    assert "| ring | 8 | 1024 | 14 | 114688 | 114688 | OK |" in text
    assert "| recursive_doubling | 8 | 1024 | 3 | 196608 | 196608 | OK |" in text


def rule_names(workdir) -> set[str]:
    """The workflow's rules, as Snakemake lists them."""
    listed = snakemake(workdir, "--list-rules")
    assert listed.returncode == 0, listed.stderr
    return {line.strip() for line in listed.stdout.splitlines() if re.fullmatch(r"\w+", line)}


def figure_names(workdir) -> list[str]:
    """The figures the table of figures (workflow/rules/figures.smk) draws: one rule each."""
    return sorted(r.removeprefix("figure_") for r in rule_names(workdir) if r.startswith("figure_"))


def test_every_figure_is_a_png_a_pdf_and_its_data(workdir):
    figures = figure_names(workdir)
    assert {"crossover", "validation", "gpu_systems", "tuned_vs_default"} <= set(figures)
    documented = re.findall(r"^\| `(\w+)` \|", (REPO / "docs/outputs.md").read_text(), re.M)
    for name in figures:
        assert name in documented, f"{name}: not in docs/outputs.md's table of figures"
        png = (workdir / "results/figures" / f"{name}.png").read_bytes()
        assert png[:8] == PNG and len(png) > 10_000, name
        pdf = (workdir / "results/figures" / f"{name}.pdf").read_bytes()
        assert pdf[:4] == b"%PDF" and b"/FontFile2" in pdf and b"/Type3" not in pdf, name
        assert len(pd.read_csv(workdir / "results/figures" / f"{name}.csv")) > 0, name


def test_the_console_shows_progress_and_no_job_s_input_list(workdir):
    console = (workdir / CONSOLE).read_text()
    assert re.search(r"^\d+ of \d+ steps \(100%\) done$", console, flags=re.MULTILINE)
    assert max(len(line) for line in console.splitlines()) < 300, "a job's input list"
    # each job's start names its rule and what it does, its end the same job and rule
    started = dict(re.findall(r"^Job (\d+): (\w+): ", console, flags=re.MULTILINE))
    finished = dict(re.findall(r"^Finished jobid: (\d+) \(Rule: (\w+)\)", console, re.M))
    assert started and started == finished
    assert re.search(r"^Job \d+: measure: ring N=8 M=1024 float64$", console, re.M)
    assert re.search(r"^Job \d+: replay: every trace on fabric infiniband$", console, re.M)


def test_every_rule_logged(workdir):
    logs = list((workdir / "results/logs").rglob("*.log"))
    assert len(logs) >= 80 + 6  # every measure job and every fabric, at least


def test_every_job_is_timed_and_summed_per_rule(workdir):
    rules = rule_names(workdir) - {"all", "runs"}  # targets, which run nothing
    timing = pd.read_csv(workdir / "results/tables/pipeline_timing.csv")
    assert set(timing.rule) == rules - {"pipeline_timing"}  # written after its own table
    measure = timing.set_index("rule").loc["measure"]
    assert measure.jobs == len(list((workdir / "results/runs").rglob("*.json")))
    assert (timing.total_s > 0).all() and timing.share.sum() == pytest.approx(1, abs=0.01)


def test_nothing_to_do_on_a_second_run(workdir):
    done = snakemake(workdir, "-n")
    assert done.returncode == 0
    assert "Nothing to be done" in done.stdout + done.stderr


def test_the_pages_claims_are_recomputed_and_a_changed_one_is_caught(workdir):
    table = pd.read_csv(workdir / "results/tables/claims.csv")
    ours = table[table.claim == "crossover_infiniband"]  # the .test config's infiniband, N = 8
    assert set(ours.page) >= {"README.md", "docs/model.md"}
    assert (ours.status == "agrees").all() and set(ours.this_run.astype(str)) == {"212.8"}
    assert "differs" not in set(table.status)
    readme = workdir / "README.md"
    text, before = readme.read_text(), readme.stat()
    line = next(row.line for row in ours.itertuples() if row.page == "README.md")
    readme.write_text(text.replace("213 KiB<!--claim crossover_infiniband-->",
                                   "231 KiB<!--claim crossover_infiniband-->"))  # fmt: skip
    try:
        done = snakemake(workdir, "--allowed-rules", "claims", "--", "results/tables/claims.csv")
        changed = pd.read_csv(workdir / "results/tables/claims.csv")
    finally:
        readme.write_text(text)
        os.utime(readme, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert done.returncode == 0, done.stderr[-2000:]
    assert (f"claim differs: README.md:{line}: crossover_infiniband states 231 KiB, this run "
            "has 212.8") in done.stderr  # fmt: skip
    wrong = changed[changed.status == "differs"]
    assert list(zip(wrong.page, wrong.line, strict=True)) == [("README.md", line)]
    again = snakemake(workdir, "--forcerun", "claims", "--allowed-rules", "claims", "--",
                      "results/tables/claims.csv")  # fmt: skip
    assert again.returncode == 0 and "claim differs" not in again.stderr  # as it was


def test_adding_a_fabric_reruns_no_measure_job(workdir, tmp_path):
    config = yaml.safe_load((workdir / ".test/config/config.yaml").read_text())
    config["fabrics"]["omnipath"] = {"alpha": 1.0e-6, "bandwidth": 1.2e10}
    config["fabrics"]["nodes-of-4"] = {
        "ranks_per_node": 4,
        "intra": {"alpha": 1.0e-7, "bandwidth": 4.5e11},
        "inter": {"alpha": 2.0e-6, "bandwidth": 5.0e10},
        "nic_per_node": 2,
    }
    extended = workdir / "extended.yaml"
    extended.write_text(yaml.safe_dump(config))
    done = snakemake(workdir, "-n", config=str(extended))
    assert done.returncode == 0, done.stderr
    planned = done.stdout + done.stderr
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", planned, flags=re.MULTILINE))
    assert "measure" not in jobs and "pingpong" not in jobs and "bench" not in jobs
    assert jobs["fabric"] == "2" and jobs["replay"] == "2" and "costs" in jobs


def test_a_changed_trace_is_replayed_again(workdir):
    trace = next((workdir / "results/runs").rglob("*.trace.npz"))
    before, content = trace.stat(), trace.read_bytes()
    trace.write_bytes(content + b"changed")  # a new trace: every replay of it is stale
    done = snakemake(workdir, "-n")
    trace.write_bytes(content)
    os.utime(trace, ns=(before.st_atime_ns, before.st_mtime_ns))
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", done.stdout + done.stderr, flags=re.MULTILINE))
    assert jobs["replay"] == "10" and "costs" in jobs  # every fabric's, and what follows
    assert "measure" not in jobs and jobs["aggregate"] == "1"  # which checks it first
    # provenance: the trace is an input of aggregate, whose table is every replay's input
    summary = snakemake(workdir, "--detailed-summary").stdout.splitlines()
    produced = {line.split("\t")[0]: line for line in summary}
    assert str(trace.relative_to(workdir)) in produced["results/tables/measurements.csv"]
    replays = [line for path, line in produced.items() if path.startswith("results/replay/")]
    assert replays and all("results/tables/measurements.csv" in line for line in replays)


def test_adding_ranks_runs_only_the_new_measure_jobs(workdir):
    config = yaml.safe_load((workdir / ".test/config/config.yaml").read_text())
    config["ranks"].append(16)
    extended = workdir / "more_ranks.yaml"
    extended.write_text(yaml.safe_dump(config))
    done = snakemake(workdir, "-n", config=str(extended))
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", done.stdout + done.stderr, flags=re.MULTILINE))
    # N = 16: every M of every algorithm (G = 2 divides it) but one- and two-shot (N <= 8)
    assert jobs["measure"] == str(8 * 4)
    assert "fabric" not in jobs


def test_the_small_workload_lands_on_its_fabrics(workdir):
    table = pd.read_csv(workdir / "results/tables/workloads.csv")
    assert list(zip(table.group, table.fabric, table.ranks, table.message_bytes,
                    table.count_per_step, strict=True)) == [
        ("TP", "infiniband", 2, 2 * 8 * 256 * 2, 4 * 4),
        ("DP", "ethernet", 8, 131072, 7),  # 1e6 parameters / TP 2 x 2 bytes = 1 MB
        ("DP", "ethernet", 8, 1_000_000 - 7 * 131072, 1),
    ]  # fmt: skip
    assert (table.winner_s <= table.runner_up_s).all()
    assert table.workload_per_step_s.iloc[0] == pytest.approx(table.per_step_s.sum())


def test_every_fabric_s_selection_is_exported_for_every_library(workdir):
    table = pd.read_csv(workdir / "results/tables/selection.csv").astype({"max_bytes": "Int64"})
    assert set(table.algorithm) <= {"ring", "recursive_doubling", "rabenseifner"}  # in all three
    # Open MPI's files leave to it the sizes its own fixed decision runs alike
    rule = selection.own_rules([workdir / paths.library("openmpi")])["openmpi"]
    assert rule == "openmpi-4.1"
    for fabric, rows in table.groupby("fabric"):
        written = json.loads((workdir / "results/selection" / fabric / "mpich.json").read_text())
        assert len(written) > 40  # MPICH's own tree for every other collective
        back = read_mpich_json(written)
        expected = rows.drop(columns=["fabric", "algorithm"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(back.drop(columns="mpich_algorithm"), expected,
                                      check_dtype=False)  # fmt: skip
        device = json.loads((workdir / "results/selection" / fabric / "mpich.ch4.json").read_text())
        intra = device["collective=allreduce"]["comm_type=intra"]
        for ranks, sizes in rows.groupby("ranks"):  # every range of ours handed to MPIR
            assert list(intra[f"comm_size<={ranks}"].values()) == [mpich.TO_MPIR] * len(sizes)
        rules = read_open_mpi_rules((workdir / "results/selection" / fabric / "openmpi.rules")
                                    .read_text())  # fmt: skip
        exported = selection.leave_to_library(rows, rule, 8)
        assert list(rules.ranks) == list(exported.ranks)
        assert list(rules.open_mpi) == [  # algorithm 0: Open MPI's own fixed decision
            0 if name == libraries.DEFAULT else int(libraries.openmpi.ALGORITHMS[name])
            for name in exported.algorithm
        ]
        assert not (workdir / "results/selection" / fabric / "impi.sh").exists()  # not asked
    comparison = (workdir / "results/tables/selection_vs_libraries.md").read_text()
    for fabric in table.fabric.unique():
        assert f"## {fabric}" in comparison


def test_a_config_without_mpich_exports_for_the_libraries_it_names(workdir):
    """MPICH is one library among the others: without it the selection is exported for
    Open MPI alone (no MPICH trees to keep), and the whole plan still builds."""
    config = yaml.safe_load((workdir / ".test/config/config.yaml").read_text())
    del config["libraries"]["mpich"]
    without = workdir / "without_mpich.yaml"
    without.write_text(yaml.safe_dump(config))
    assert snakemake(workdir, "-n", config=str(without)).returncode == 0
    comparison = workdir / "results/tables/selection_vs_libraries.md"

    def models(pattern: str) -> list[Path]:
        """The model's exported files of `pattern` (the clock's are another rule's)."""
        found = (workdir / "results/selection").rglob(pattern)
        return sorted(path for path in found if path.parent.name != paths.CLOCK)

    exported = models("openmpi.*")
    for path in [*exported, *models("mpich.*")]:
        path.unlink()
    try:
        done = snakemake(workdir, "--allowed-rules", "selection", str(comparison.relative_to(
            workdir)), config=str(without))  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        assert all(path.exists() for path in exported) and exported
        assert not models("mpich.*")
    finally:  # the complete run again, for the other tests
        restored = snakemake(workdir, "--allowed-rules", "selection", str(comparison.relative_to(
            workdir)))  # fmt: skip
        assert restored.returncode == 0, restored.stderr[-3000:]


def test_exported_files_load_in_their_libraries(workdir):
    """Each library at N = 2 with a flat and a two-level fabric's file (the tuning loads
    local-mpi's; benchmarks/check_exports.py loads them all): MPI_Init succeeds, every sum
    is exact, and at each size the probe sees the algorithm the file names."""
    table = pd.read_csv(workdir / "results/tables/selection.csv").astype({"max_bytes": "Int64"})
    chosen = table[(table.ranks == 2) & table.fabric.isin(["infiniband", "two-level"])]
    for name in LIBRARIES:
        library = libraries.load(workdir / paths.library(name))
        for fabric, rows in chosen.groupby("fabric"):
            path = workdir / paths.selection(fabric, name)
            setting = libraries.steering(library, 2, selection=str(path))
            probed = observe(library, 2, [1, 64, 4096], setting)
            for size in probed["sizes"]:
                assert size["verified"], (name, fabric, size)
                expected = tuning.named(rows, 2, size["elements"] * 8)
                assert expected in size["algorithms"] or size["algorithms"] == [], (name, size)


def test_each_library_is_timed_tuned_and_obeys(workdir):
    table = pd.read_csv(workdir / "results/tables/tuned_vs_default.csv")
    assert set(table.library) == set(LIBRARIES)
    assert len(table) == len(LIBRARIES) * 3  # N = 2, three sizes
    assert (table[["default_s", "model_s", "clock_s"]] > 0).all().all()
    for setting in ("model", "clock"):
        # None where the probe cannot tell (M = 1; MPICH's Rabenseifner, for built-ins only)
        obeyed = table[f"{setting}_obeyed"].dropna().astype(bool)
        # the clock may leave sizes to the library's own choice: nothing named to check
        left = (table[f"{setting}_algorithm"] == libraries.DEFAULT).sum()
        assert len(obeyed) + left >= len(LIBRARIES)
        # Intel MPI's own Rabenseifner is recursive doubling at N = 2 (docs/libraries.md)
        named = table.loc[obeyed.index, f"{setting}_algorithm"]
        substituted = (table.loc[obeyed.index, "library"] == "impi") & (named == "rabenseifner")
        assert obeyed[~substituted].all(), table.loc[obeyed.index[~obeyed]].to_dict("records")
    clock = pd.read_csv(workdir / "results/tables/clock_selection.csv")
    assert set(clock.library) == set(LIBRARIES)
    wallclock = pd.read_csv(workdir / "results/tables/wallclock.csv")
    assert {f"MPI_Allreduce-{name}" for name in LIBRARIES} <= set(wallclock.algorithm)
    assert "| Open MPI | 2 | 3 |" in (workdir / "results/tables/tuned_vs_default.md").read_text()


def test_a_library_that_can_switch_times_its_forced_algorithms_in_one_launch(workdir):
    """MPICH's and Open MPI's forced algorithms run in one launch per N, switched through
    MPI_T, and probed per algorithm; Intel MPI's in a launch each."""
    for name in LIBRARIES:
        tuning_dir = workdir / "results/tuning" / name
        if not libraries.KINDS[name].switch:
            assert not (tuning_dir / "forced").exists() and (tuning_dir / "force-ring").is_dir()
            continue
        run = json.loads((tuning_dir / "forced/N2.json").read_text())
        probe = json.loads((tuning_dir / "forced/N2.probe.json").read_text())
        switched = {record["algorithm"] for record in run["records"]}
        assert switched == {f"MPI_Allreduce[{a}]" for a in run["switch"]}, switched
        assert {"ring", libraries.DEFAULT} <= set(run["switch"])
        assert {row["switched"] for row in probe["sizes"]} == set(run["switch"])
        assert not (tuning_dir / "force-ring").exists()


def test_adding_a_workload_reruns_no_measure_job(workdir):
    config = yaml.safe_load((workdir / ".test/config/config.yaml").read_text())
    config["workloads"]["tiny-decode"] = {
        "hidden": 256, "sequence": 1, "micro_batch": 4, "layers": 4, "parameters": 1.0e6,
        "dtype_bytes": 2, "tp": 8, "dp": 1, "backward": False, "tp_fabric": "ethernet",
    }  # fmt: skip
    extended = workdir / "more_workloads.yaml"
    extended.write_text(yaml.safe_dump(config))
    done = snakemake(workdir, "-n", config=str(extended))
    assert done.returncode == 0, done.stderr
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", done.stdout + done.stderr, flags=re.MULTILINE))
    # the scale figure's sizes are the workloads' all-reduces: it is redone too, and the
    # claims, some of which the workloads' table holds
    assert set(jobs) == {"workloads", "figure_workloads", "scale", "figure_scale",
                         "pipeline_timing", "claims", "all", "total"}  # fmt: skip


def test_the_model_meets_the_clock(workdir):
    """Both transports timed, the mpi one beside MPI_Allreduce; every point predicted."""
    wallclock = pd.read_csv(workdir / "results/tables/wallclock.csv")
    assert set(zip(wallclock.transport, wallclock.algorithm, strict=True)) == {
        ("queue", "ring"), ("queue", "recursive_doubling"),
        ("mpi", "ring"), ("mpi", "recursive_doubling"), ("mpi", "MPI_Allreduce"),
        *(("mpi", f"MPI_Allreduce-{name}") for name in LIBRARIES),  # each in its own launch
    }  # fmt: skip
    assert wallclock.verified.all() and (wallclock.time_median_s > 0).all()
    ours = wallclock[~wallclock.library]
    assert ours.matches_theory.all() and (ours[ours.transport == "mpi"].ratio_to_mpi > 0).all()
    validation = pd.read_csv(workdir / "results/tables/validation.csv")
    assert len(validation) == 2 * 2 * 3 and (validation.predicted_s > 0).all()
    assert set(validation.fabric) == {"local", "local-mpi"}
    assert (validation.cores == len(os.sched_getaffinity(0))).all()  # what the ranks had
    for model in ladder.MODELS:  # the whole ladder, every point
        assert (validation[ladder.column(model)] > 0).all()
    # the timing protocol: two launches, each point's interval, the prediction's from the
    # exchange's, and noisy points marked against wallclock.noise_bound
    assert (wallclock.launches >= 2).all()  # more where the budget bought them
    inside = (validation.low_s <= validation.measured_s) & (
        validation.measured_s <= validation.high_s
    )
    assert inside.all()
    assert (validation.predicted_low_s <= validation.predicted_high_s).all()
    width = (validation.high_s - validation.low_s) / validation.measured_s
    assert (validation.noisy == (width > 0.25)).all()
    clusters = pd.read_csv(workdir / "results/tables/validation_clusters.csv")
    assert len(clusters) == 24 and set(clusters.cluster) == {"abci-16"}
    assert set(clusters.library) == {"openmpi-4.0"} and (clusters.intra == "shm-xeon").all()
    assert (clusters.node_log_s > 0).all()  # the node log's variant, labelled apart
    for model in ladder.MODELS:
        assert (clusters[ladder.column(model)] > 0).all()
    summary = pd.read_csv(workdir / "results/tables/validation_summary.csv")
    assert set(summary["where"]) == {"queue", "mpi", "abci-16"}
    assert set(summary.model) == set(ladder.MODELS)
    here = summary[summary["where"].isin(["queue", "mpi"])]
    noisy = validation.groupby(["transport", "ranks"]).noisy.sum()
    assert sorted(here.kept_out.astype(int)) == sorted(list(noisy) * len(ladder.MODELS))


def test_the_report_is_written(workdir):
    """As the README runs it: no --cores needed. Headless Chromium renders it: the report's
    introduction shows, and no caption holds a Docutils error ("System Message") block."""
    done = subprocess.run(
        [*SNAKEMAKE, "--configfile", ".test/config/config.yaml", "--replace-workflow-config",
         "--report", "results/report.html"],
        cwd=workdir, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    html = (workdir / "results/report.html").read_bytes()
    assert len(html) > 100_000 and b"crossover.png" in html and b"validation.png" in html
    captions = {path.stem for path in (REPO / "workflow/report").glob("*.rst")} - {"workflow"}
    for name in captions:  # every caption is in the report
        assert f"{name}.png".encode() in html or f"{name}.csv".encode() in html, name
    dom = rendered_dom(workdir / "results/report.html")  # with every caption as data
    assert "All-reduce from scratch, and why the cheapest one keeps changing." in dom
    assert "System Message" not in dom and "system-message" not in dom


def rendered_dom(page) -> str:
    """The DOM of a page after headless Chromium has loaded it and run its scripts."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        shown = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=5000",
             "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert shown.returncode == 0, shown.stderr[-2000:]
    return shown.stdout


def falling_latency(work, config):
    """A fabric whose osu_latency file shows the latency falling as messages grow."""
    (work / "falling.txt").write_text("# Size  Latency (us)\n1 30.0\n1024 20.0\n65536 10.0\n")
    config["fabrics"]["falling"] = {"measurements": "falling.txt"}


def broken_yaml(work, config):
    """A YAML syntax error in the config file the Snakefile loads."""
    (work / "config/config.yaml").write_text("seed: 0\ndata: int: 1\n")


# One of each path by which a config error reaches the user (the checks themselves are
# unit-tested in tests/study/test_config.py): the schema, a fabric file fitted by the
# check, and a YAML syntax error in the config file the Snakefile loads.
@pytest.mark.parametrize(
    ("change", "line"),
    [
        (lambda work, c: c["fabrics"]["infiniband"].update(alpha=-2.6e-6),
         "config error: fabrics.infiniband.alpha: must be greater than 0, got -2.6e-06"),
        (falling_latency, "config error: fabrics.falling: falling.txt: the latency falls as "
         "messages grow (the fit gives beta=-2.02e-10 s/B); it must be positive"),
        (broken_yaml,
         "config error: config/config.yaml line 2: mapping values are not allowed here"),
    ],
    ids=["schema", "fabric-file", "yaml-syntax"],
)  # fmt: skip
def test_a_bad_config_fails_before_any_job_in_one_line(tmp_path, change, line):
    work = copy_workflow(tmp_path)
    config = yaml.safe_load((work / ".test/config/config.yaml").read_text())
    change(work, config)
    (work / "bad.yaml").write_text(yaml.safe_dump(config))
    done = snakemake(work, config="bad.yaml")
    assert done.returncode != 0
    assert line in done.stderr.splitlines(), done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "Exception" not in done.stderr
    assert not (work / "results").exists()


def test_lint_and_format():
    lint = subprocess.run([*SNAKEMAKE, "--lint"], cwd=REPO, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run(
        [sys.executable, "-m", "snakefmt", "--check", "Snakefile", "workflow"],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=REPO,
                          capture_output=True, text=True)  # fmt: skip
    assert ruff.returncode == 0, ruff.stdout
