"""What the pipeline's rules expand a checked config into: the files each target needs, and
each kind of job's inputs and options. The rule files' input functions call one method
each; `wildcards` and `input` are Snakemake's named lists (anything with `.get` and
attribute access serves)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import jobs, paths, tuning
from .claims import tables_read
from .config import Plan, library_fabric
from .fabrics import measured_parts
from .grid import expand_axis


class Targets:
    """The plan's files and job options (`config`: the checked config, its defaults filled
    in; `runtime_minutes`: one launch's walltime; a method's `figure_sections`: each
    figure's section in the table of figures, figures.smk)."""

    def __init__(self, plan: Plan, config: Mapping[str, Any], runtime_minutes: int) -> None:
        self.plan = plan
        self.config = config
        self.wallclock = plan.wallclock
        self.runtime_minutes = runtime_minutes

    # The grid and its records

    def grid_points(self) -> list[tuple[str, str, int, int]]:
        """Every (dtype, variant, N, M) of the grid, in a stable order (hierarchical
        variants only where their node size divides N)."""
        plan = self.plan
        return [
            (dtype, variant.name, ranks, elements)
            for dtype in plan.dtypes
            for variant in plan.variants
            for ranks in plan.ranks
            if variant.runs_at(ranks)
            for elements in plan.elements
        ]

    def records(self) -> list[str]:
        """Every record of the grid."""
        return [paths.record(*point) for point in self.grid_points()]

    def traces(self) -> list[str]:
        """Every message trace of the grid, in the order of records()."""
        return [paths.trace(*point) for point in self.grid_points()]

    def measured_files(self) -> list[str]:
        """Every record and trace: targets, so that a deleted one is measured again and all
        that reads it reruns."""
        return self.records() + self.traces()

    def records_at(self, ranks: int, elements: int, dtype: str) -> list[str]:
        """The records of every variant at one grid point."""
        return [
            paths.record(dtype, variant.name, ranks, elements)
            for variant in self.plan.variants
            if variant.runs_at(ranks)
        ]

    def variant_arguments(self, wildcards) -> str:
        """The `collectives measure` options of a variant, e.g. hierarchical-G8."""
        return next(v for v in self.plan.variants if v.name == wildcards.algorithm).arguments()

    # Fabrics

    def fabric_files(self, kinds: Iterable[str] | None = None) -> list[str]:
        """Every fabric's link classes (only those of the given kinds)."""
        return [
            paths.FABRIC.format(fabric=fabric)
            for fabric, kind in self.plan.fabrics.items()
            if kinds is None or kind in kinds
        ]

    def replay_tables(self) -> list[str]:
        """Every run replayed on each fabric."""
        return [paths.REPLAY.format(fabric=fabric) for fabric in self.plan.fabrics]

    def fabric_config(self, wildcards) -> str:
        """Only this fabric's entry, as canonical JSON: adding a fabric or reordering keys
        changes no other job's params (Snakemake reruns a job whose params change)."""
        return json.dumps(self.config["fabrics"][wildcards.fabric], sort_keys=True)

    def fabric_measurements(self, wildcards) -> list[str]:
        """The point-to-point files a fabric is fitted from (none for given link classes)."""
        fabric = wildcards.fabric
        if self.plan.fabrics[fabric] == "pingpong":
            return [paths.PINGPONG.format(fabric=fabric), paths.REDUCTIONS.format(fabric=fabric)]
        return [part["measurements"] for part in measured_parts(self.config["fabrics"][fabric])]

    # The timing jobs: ping-pongs, exchanges, benches

    @functools.cached_property
    def pingpongs(self) -> dict[str, Mapping[str, Any]]:
        """Every ping-pong fabric's `pingpong` settings (sizes, iterations...), by name."""
        return {
            fabric: self.config["fabrics"][fabric]["pingpong"]
            for fabric, kind in self.plan.fabrics.items()
            if kind == "pingpong"
        }

    def calibrating_fabric(self, wildcards) -> str:
        """The ping-pong fabric a timing job's settings come from: its own, or its
        transport's."""
        if wildcards.get("fabric") is not None:
            return wildcards.fabric
        return self.wallclock.fabrics[wildcards.transport]

    def pingpong_sizes(self, wildcards) -> str:
        """The message sizes of a ping-pong, or of an exchange (its transport's
        ping-pong's), comma-separated."""
        return ",".join(map(str, self._sizes(wildcards)))

    def _sizes(self, wildcards) -> list[int]:
        return expand_axis(self.pingpongs[self.calibrating_fabric(wildcards)]["sizes"])

    def pingpong_iterations(self, wildcards) -> int:
        """Timed repeats per size of a ping-pong, or of an exchange (as its ping-pong's)."""
        return self.pingpongs[self.calibrating_fabric(wildcards)]["iterations"]

    def pingpong_library(self, wildcards) -> list[str]:
        """The descriptor of the MPI library whose own point-to-point a ping-pong
        measures, if it names one."""
        library = self.pingpongs[wildcards.fabric].get("library")
        return [paths.library(library)] if library else []

    def job_share(self, points: int, ranks: int) -> float | None:
        """A timing job's seconds of wallclock.budget (jobs.budget_share)."""
        return jobs.budget_share(self.plan, self.pingpongs, points, ranks)

    def calibration_options(self, wildcards) -> str:
        """`collectives repeat`'s options for a ping-pong or an exchange."""
        ranks = jobs.timing_ranks(wildcards.get("ranks"))
        settings = self.pingpongs[self.calibrating_fabric(wildcards)]
        return jobs.calibration_options(
            settings, self.job_share(len(self._sizes(wildcards)), ranks)
        )

    def bench_options(self, wildcards) -> str:
        """`collectives repeat`'s options for a bench, a forced library run, or a
        library's compared runs (its default, model and clock, together)."""
        if wildcards.get("transport") is not None:
            points = jobs.bench_points(self.wallclock, wildcards.transport)
        else:
            setting = wildcards.get("setting")
            settings = [setting] if setting is not None else tuning.SETTINGS
            points = sum(jobs.library_points(self.plan, wildcards.library, s) for s in settings)
        return jobs.bench_options(self.wallclock, self.job_share(points, int(wildcards.ranks)))

    def bench_peers(self, wildcards) -> str:
        """The library all-reduces a bench times beside ours: the config's, nothing else."""
        return ",".join(self.wallclock.peers_for(wildcards.transport))

    def wallclock_runs(self) -> list[str]:
        """Every timed run's document: one per transport and N."""
        return self._per_timed_point(paths.WALLCLOCK)

    def exchange_runs(self) -> list[str]:
        """The exchange benchmark of every timed (transport, N)."""
        return self._per_timed_point(paths.EXCHANGE)

    def _per_timed_point(self, pattern: str) -> list[str]:
        return [
            pattern.format(transport=transport, ranks=ranks)
            for transport, ranks in jobs.exchange_keys(self.wallclock)
        ]

    def cluster_fabrics(self, wildcards) -> list[str]:
        """The fabrics (JSON) of one cluster's links between and inside its nodes."""
        entry = self.wallclock.clusters[wildcards.cluster]
        return sorted(
            {paths.FABRIC.format(fabric=entry[key]) for key in ("fabric", "intra_fabric")}
        )

    def cluster_logs(self, wildcards) -> list[str]:
        """One cluster's osu_allreduce log, and its single-node log where it has one."""
        entry = self.wallclock.clusters[wildcards.cluster]
        return [log["allreduce"] for log in (entry, entry.get("node")) if log]

    def system_fabrics(self, system: str) -> list[str]:
        """The link-level fabric files of the GPU system named `system`."""
        entry = self.plan.gpu_systems[system]
        return [paths.FABRIC.format(fabric=entry[key]) for key in ("intra_fabric", "inter_fabric")]

    # The MPI libraries' tuning

    def library_options(self, wildcards) -> str:
        """`collectives library` options of the job's library."""
        library = wildcards.library
        return jobs.library_options(self.plan.libraries[library], paths.library(library))

    def tuning_runs(
        self, settings: Sequence[str] | None = None, pattern: str = paths.TUNING
    ) -> list[str]:
        """The files of every timed (library, setting, N): the runs, or with paths.PROBE
        their probes."""
        return [
            pattern.format(library=library, setting=setting, ranks=ranks)
            for library, setting, ranks in jobs.library_tuning_keys(self.plan, settings)
        ]

    def library_peers(self) -> list[str]:
        """Every MPI library's MPI_Allreduce at its default, each in launches of its own."""
        return self.tuning_runs(["default"])

    def tuning_probes(self) -> list[str]:
        """The probes of the tuned runs: which algorithm each file made the library run."""
        return self.tuning_runs(["model", "clock"], paths.PROBE)

    def model_fabric(self, library: str) -> str:
        """The fabric a library's model selection comes from: its own ping-pong's, else the
        mpi transport's."""
        return library_fabric(self.config, library, self.wallclock.fabrics["mpi"])

    def selection_files(self, library: str, setting: str) -> list[str]:
        """A library's model or clock selection: its files, the one it loads first."""
        fabric = self.model_fabric(library) if setting == "model" else paths.CLOCK
        return paths.selection_files(fabric, library)

    def selection_keys(self) -> list[tuple[str, str]]:
        """Every (fabric, library) whose selection is exported: sorted, so that reordering
        the config's fabrics changes no job's params."""
        return sorted((f, library) for f in self.plan.fabrics for library in self.plan.libraries)

    def model_selections(self) -> list[str]:
        """Each fabric's selection exported for each MPI library: every file of each."""
        return [
            p for f, library in self.selection_keys() for p in paths.selection_files(f, library)
        ]

    def switch_option(self, wildcards) -> str:
        """`--switch` of the job's run or probe (FORCED only)."""
        plan = self.plan
        return tuning.switch_option(
            plan.algorithms, list(plan.libraries), wildcards.library, wildcards.setting
        )

    def library_command(self, wildcards, input, setting: str) -> str:
        """One library run's measurement (jobs.library_command)."""
        return jobs.library_command(
            self.plan, input.library, wildcards.library, setting, int(wildcards.ranks),
            input.get(setting), self.config["seed"], self.runtime_minutes,
        )  # fmt: skip

    def setting_options(self, wildcards, input) -> str:
        """`collectives mpiexec` options of the job's setting."""
        return tuning.setting_options(wildcards.setting, input.get("selection"))

    def forced_command(self, wildcards, input) -> str:
        """A forced run's measurement."""
        return self.library_command(wildcards, input, wildcards.setting)

    def compared_commands(self, wildcards, input) -> str:
        """The default, model and clock runs' measurements, `::` between them: launched in
        turns by `collectives repeat`."""
        return " :: ".join(self.library_command(wildcards, input, s) for s in tuning.SETTINGS)

    # What each target holds

    def study_outputs(self, figure_sections: Mapping[str, str]) -> list[str]:
        """Every table and figure of the study, and each fabric's selection files."""
        return (
            [paths.table(name) for name in paths.TABLES["study"]]
            + self.model_selections()
            + figure_files(figure_sections, "study")
        )

    def wallclock_outputs(self, figure_sections: Mapping[str, str]) -> list[str]:
        """The tables and figures of the wallclock section, if the config has one, and the
        libraries' tuning, if it has libraries."""
        if self.wallclock is None:
            return []
        parts = ["wallclock", "tuning"] if self.plan.libraries else ["wallclock"]
        return [
            path
            for part in parts
            for path in [paths.table(t) for t in paths.TABLES[part]]
            + figure_files(figure_sections, part)
        ]

    def gpu_outputs(self, figure_sections: Mapping[str, str]) -> list[str]:
        """The GPU systems' validation tables and figures, if the config has systems."""
        if not self.plan.gpu_systems:
            return []
        return [paths.table(t) for t in paths.TABLES["gpu"]] + figure_files(figure_sections, "gpu")

    def claim_tables(self, figure_sections: Mapping[str, str]) -> list[str]:
        """The tables of this run that the pages' claims read (study.claims)."""
        made = set(
            self.study_outputs(figure_sections)
            + self.wallclock_outputs(figure_sections)
            + self.gpu_outputs(figure_sections)
        )
        return [t for t in (f"{paths.RESULTS}/{name}" for name in tables_read()) if t in made]


def figure_paths(name: str) -> dict[str, str]:
    """One figure's files by suffix: its PNG, its PDF and the data it plots (CSV)."""
    return {ext: paths.FIGURE.format(figure=name, ext=ext) for ext in ("png", "pdf", "csv")}


def figure_files(figure_sections: Mapping[str, str], section: str) -> list[str]:
    """Every file of the figures of one section (figures.smk's table of figures)."""
    return [
        path
        for name, of in figure_sections.items()
        if of == section
        for path in figure_paths(name).values()
    ]


def claim_pages(root: Path = Path(".")) -> list[str]:
    """The pages whose marked numbers are checked (claims.csv): the README and docs/."""
    pages = [root / "README.md", *(root / "docs").glob("*.md")]
    return sorted(str(page) for page in pages if page.exists())
