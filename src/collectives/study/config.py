"""The pipeline's config: its YAML read, its shape checked against the JSON schema, then
its meaning (every measurement file it names parsed and fitted).

Every problem is reported as a ConfigError naming the config key (or the file and line of a
YAML syntax error), before any job runs; the workflow prints it as one line.
"""

from __future__ import annotations

import difflib
import importlib.util
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .. import registry
from ..model.library_rules import RULES
from ..run.libraries import KINDS, common_algorithms
from ..run.record import DATA_KINDS, DTYPES, MAX_RANKS
from .fabrics import (
    FabricError,
    kind_of,
    link_parts,
    osu_latency_at,
    read_measurements,
    screen_link,
)
from .grid import expand_axis
from .nccl_tests import read_call_floor, read_nccl_tests
from .scale import DEFAULT_RANKS as DEFAULT_SCALE_RANKS
from .scale import workload_sizes
from .systems import SystemEntryError, domain_gpus, domain_size, fills_domains, resolve

FABRIC_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class ConfigError(ValueError):
    """The config is unusable; the message starts with the offending key."""


@dataclass(frozen=True)
class Variant:
    """An algorithm with its parameters, as one competitor of the grid."""

    algorithm: str
    parameters: tuple[tuple[str, int], ...] = ()  # (name, value), in declared order

    @property
    def name(self) -> str:
        """The variant's name in the pipeline: 'ring', 'hierarchical-G8'."""
        return registry.variant_name(self.algorithm, dict(self.parameters))

    def runs_at(self, ranks: int) -> bool:
        """Whether the grid runs it at N: up to the algorithm's max_ranks, with every
        parameter fitting N (a node size must divide it)."""
        entry = registry.ALGORITHMS[self.algorithm]
        own = {p.name: p for p in entry.parameters}
        return entry.applies_at(ranks) and all(
            own[name].fits(value, ranks) for name, value in self.parameters
        )

    def arguments(self) -> str:
        """Its `collectives measure` options."""
        options = "".join(f" --{name.replace('_', '-')} {value}" for name, value in self.parameters)
        return f"--algorithm {self.algorithm}{options}"


@dataclass(frozen=True)
class Wallclock:
    """The timed runs on this machine and the real clusters the model is checked against."""

    transports: list[str]
    ranks: list[int]
    elements: list[int]
    algorithms: list[str]
    peers: list[str]
    warmup: int
    iterations: int
    rounds: int
    min_time: float
    launches: int
    library_ranks: list[int]  # N at which the MPI libraries are timed and tuned
    budget: float  # seconds for every timing job together
    noise_bound: float
    fabrics: dict[str, str]  # transport -> the fabric calibrated by its ping-pong
    clusters: dict[str, dict[str, Any]]

    def peers_for(self, transport: str) -> list[str]:
        """The library all-reduces timed beside ours on `transport`: MPI_Allreduce needs
        MPI ranks; Gloo runs on either. The config alone decides (check refuses a peer
        that is not installed), so installing a package changes no job."""
        return [peer for peer in self.peers if peer != "mpi" or transport == "mpi"]


@dataclass(frozen=True)
class Plan:
    """What the config asks for, expanded: the grid, the fabrics and the figure choices."""

    variants: list[Variant]
    ranks: list[int]
    elements: list[int]
    dtypes: list[str]
    fabrics: dict[str, str]  # name -> kind: given, measured, pingpong or structured
    figures: dict[str, Any]
    wallclock: Wallclock | None = None
    libraries: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> where
    warnings: list[str] = field(default_factory=list)  # one line each: usable, but rough
    dtype: str = "float64"  # the one the figures, workloads, selections and timed runs use
    gpu_systems: dict[str, dict[str, Any]] = field(default_factory=dict)  # checked entries

    @property
    def algorithms(self) -> list[str]:
        """Every variant's name, in config order."""
        return [variant.name for variant in self.variants]

    @property
    def flat_algorithms(self) -> list[str]:
        """The variants at their algorithm's defaults (no node size named): what a
        cluster's flat fit can price."""
        return [name for name in self.algorithms if not registry.parse_variant(name)[1]]


# libyaml's safe loader where PyYAML was built with it: every Snakemake invocation (a no-op
# too) reads the config and its schema, ten times faster than with the pure-Python loader,
# whose error messages are clearer (it reads a file again to explain what is wrong).
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: str | Path) -> Any:
    """A YAML file's content; ConfigError naming the file and line of a syntax error
    (Snakemake's own message names neither)."""
    try:
        text = Path(path).read_text()
        try:
            return yaml.load(text, Loader=FAST_LOADER)
        except yaml.YAMLError:
            return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}{where}: {exc.problem or exc.context}") from None
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: {exc}") from None


def validate_schema(config: dict[str, Any], schema: str | Path) -> None:
    """The config against its JSON schema; the most relevant violation as ConfigError
    'key: reason' (jsonschema's own report is ten lines of schema). An unknown key comes
    first: a misspelt key is also the required one reported missing."""
    from jsonschema import Draft202012Validator, exceptions

    rules = read_yaml(schema)
    rules["properties"]["libraries"]["propertyNames"] = {"enum": list(KINDS)}  # one per module
    errors = list(Draft202012Validator(rules).iter_errors(config))
    unknown = [error for error in errors if error.validator == "additionalProperties"]
    error = min(unknown, key=lambda e: len(e.absolute_path)) if unknown else None
    error = error or exceptions.best_match(errors)
    if error is not None:
        raise ConfigError(_schema_reason(error))


# Keys that earlier configs had, and where they went.
MOVED = {
    "figures.dtype": "moved to the top-level key dtype (the one dtype the figures, the "
    "workloads, the selections and the timed runs use)",
}


def _schema_reason(error: Any) -> str:
    """'key: reason' for one jsonschema ValidationError, worded like check's own messages."""
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    value, limit, instance = error.validator, error.validator_value, error.instance
    if value == "required":
        missing = next(name for name in limit if name not in instance)
        return f"{(key + '.' + missing).lstrip('.')}: required, missing"
    if value == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        unknown = str(next(name for name in instance if name not in known))
        moved = MOVED.get((key + "." + unknown).lstrip("."))
        if moved:
            return f"{(key + '.' + unknown).lstrip('.')}: {moved}"
        close = difflib.get_close_matches(unknown, known, n=1, cutoff=0.6)
        guess = f"did you mean {close[0]}? " if close else ""
        return f"{(key + '.' + unknown).lstrip('.')}: unknown key; {guess}valid: {', '.join(known)}"
    reasons = {
        "exclusiveMinimum": lambda: f"must be greater than {limit}, got {instance!r}",
        "minimum": lambda: f"must be at least {limit}, got {instance!r}",
        "enum": lambda: f"{instance!r} is not one of {', '.join(map(str, limit))}",
        "type": lambda: f"must be {'an' if limit[0] in 'aeiou' else 'a'} {limit}, got {instance!r}",
        "minItems": lambda: "must not be empty",
        "minProperties": lambda: "must not be empty",
        "uniqueItems": lambda: f"repeats a value: {instance}",
        "oneOf": lambda: f"{instance!r} is not {error.schema.get('description', 'valid')}",
    }
    reason = reasons.get(value, lambda: error.message)()
    return f"{key.lstrip('.') or 'config'}: {reason}"


def check(config: dict[str, Any], basedir: Path) -> Plan:
    """Validate `config` (paths relative to `basedir`) and expand it into a Plan."""
    ranks = _axis(config, "ranks", 1, MAX_RANKS)
    elements = _axis(config, "elements", 1, None)
    variants = _variants(config, ranks)
    for index, dtype in enumerate(config.get("dtypes", [])):
        if dtype not in DTYPES:
            raise ConfigError(
                f"dtypes[{index}]: unknown dtype {dtype!r}; valid: {', '.join(DTYPES)}"
            )
    if config.get("data", "int") not in DATA_KINDS:
        raise ConfigError(f"data: must be one of {', '.join(DATA_KINDS)}")
    dtype = config.get("dtype", config["dtypes"][0])
    if dtype not in config["dtypes"]:
        raise ConfigError(f"dtype: {dtype} is not one of dtypes {config['dtypes']}")
    warnings = [
        f"{name}: no algorithm of algorithms takes this parameter; the axis is unused"
        for name in registry.parameters_by_name()
        if name in config and not any(name == p for v in variants for p, _ in v.parameters)
    ]
    fabrics = {
        name: _fabric(name, entry, basedir, warnings) for name, entry in config["fabrics"].items()
    }
    for name, entry in config["fabrics"].items():
        if "pingpong" in entry and pingpong_transport(entry) == "mpi":
            _need_mpi(f"fabrics.{name}.pingpong.transport")
    figures = _figures(config, variants, ranks, elements, fabrics)
    gpu_systems = _gpu_systems(config, fabrics, basedir, warnings)
    _workloads(config, ranks, fabrics)
    wallclock = None
    if "wallclock" in config:
        wallclock = _wallclock(config, fabrics, basedir)
    libraries = _libraries(config)
    for name, entry in config["fabrics"].items():
        measured_under = entry.get("pingpong", {}).get("library")
        if measured_under and measured_under not in libraries:
            raise ConfigError(f"fabrics.{name}.pingpong.library: {measured_under} is not "
                              "one of libraries")  # fmt: skip
        if measured_under and pingpong_transport(entry) != "mpi":
            raise ConfigError(f"fabrics.{name}.pingpong.library: a library's own ping-pong "
                              "needs transport: mpi")  # fmt: skip
    if "clock" in fabrics:
        raise ConfigError("fabrics.clock: the name is taken by the clock's selection files")
    if libraries and wallclock and "mpi" not in wallclock.fabrics:
        raise ConfigError("libraries: tuning them needs wallclock.transports to include mpi")
    if gpu_systems:
        figures["nccl_choice"] = _nccl_choice(figures.get("nccl_choice", {}), gpu_systems)
    figures["scale"] = _scale(config, figures, fabrics, gpu_systems)
    return Plan(variants, ranks, elements, list(config["dtypes"]), fabrics, figures, wallclock,
                libraries, warnings, dtype, gpu_systems)  # fmt: skip


def _priced_at(algorithm: str, ranks: int, gpus_per_node: int) -> bool:
    """Whether the GPU rung prices `algorithm` at `ranks`: at its defaults, with a node size
    of the system's GPUs per node where it takes one (collectives.study.gpu)."""
    try:
        registry.get(algorithm).on_nodes(ranks, gpus_per_node)
    except ValueError:
        return False
    return True


def _no_such(where: str, what: str, name: Any, known: Any, section: str) -> ConfigError:
    """The one-line error for a name that names nothing in `section`: the closest valid
    names, or all of them when none is close."""
    valid = [str(k) for k in known]
    close = difflib.get_close_matches(str(name), valid, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}?" if close else f"valid: {', '.join(valid)}"
    return ConfigError(f"{where}: no {what} {name!r} in {section}; {hint}")


def _gpu_systems(
    config: dict[str, Any], fabrics: dict[str, str], basedir: Path, warnings: list[str]
) -> dict[str, dict[str, Any]]:
    """Each GPU system's fabrics exist and its log parses and, where it names its devices,
    holds nodes x gpus_per_node ranks on as many hosts, on the GPU the entry names; then the
    entry resolved (collectives.study.systems), its guesses added to `warnings`."""
    systems = config.get("gpu_systems", {})
    costs = _gpu_costs(config, basedir) if systems else {}
    checked = {}
    for name, entry in systems.items():
        where = f"gpu_systems.{name}"
        if not FABRIC_NAME.match(name):
            raise ConfigError(f"{where}: a name of letters, digits, '.', '_' and '-'")
        ranks = entry["nodes"] * entry["gpus_per_node"]
        if ranks < 2:
            raise ConfigError(f"{where}: an all-reduce needs at least 2 GPUs, the entry has 1")
        domain = domain_gpus(entry)
        if not any(_priced_at(a, ranks, domain) for a in config["algorithms"]):
            raise ConfigError(f"{where}: no algorithm of algorithms runs at {ranks} ranks")
        for key in ("intra_fabric", "inter_fabric"):
            if entry[key] not in fabrics or fabrics[entry[key]] == "structured":
                flat = [name for name, kind in fabrics.items() if kind != "structured"]
                raise _no_such(f"{where}.{key}", "flat fabric", entry[key], flat, "fabrics")
        try:
            log = read_nccl_tests(basedir / entry["log"])
        except FabricError as exc:
            raise ConfigError(f"{where}.log: {exc}") from None
        if log.ranks is not None and (log.ranks, log.nodes) != (ranks, entry["nodes"]):
            raise ConfigError(
                f"{where}: the log ran {log.ranks} ranks on {log.nodes} hosts, the entry says "
                f"{ranks} on {entry['nodes']}"
            )
        model = entry["accelerator"]["model"]
        if log.gpus and set(log.gpus) != {model}:
            raise ConfigError(
                f"{where}.accelerator.model: the log ran on {', '.join(sorted(set(log.gpus)))}"
            )
        try:
            checked[name], guessed = resolve(name, entry, log.library, costs)
        except SystemEntryError as exc:
            raise ConfigError(str(exc)) from None
        warnings.extend(guessed)
    return checked


def _gpu_costs(config: dict[str, Any], basedir: Path) -> dict[str, Any]:
    """gpu_costs as measured: each generation's per-call floor and each network kind's
    one-way latency (µs at the entry's size), read from their files."""
    given = config.get("gpu_costs", {})
    floors, latencies = {}, {}
    for generation, entry in given.get("call_floor", {}).items():
        try:
            floors[generation] = read_call_floor(basedir / entry["log"], entry["up_to_bytes"])
        except FabricError as exc:
            raise ConfigError(f"gpu_costs.call_floor.{generation}.log: {exc}") from None
    for kind, entry in given.get("network_latency", {}).items():
        where = f"gpu_costs.network_latency.{kind}"
        try:
            seconds = osu_latency_at(basedir / entry["log"], entry["bytes"], entry.get("table"))
        except FabricError as exc:
            raise ConfigError(f"{where}.log: {exc}") from None
        latencies[kind] = seconds * 1e6
    reference = given.get("reference")
    if latencies and reference not in latencies:
        raise ConfigError(f"gpu_costs.reference: no latency of {reference} in network_latency")
    return {"call_floor": floors, "network_latency": latencies, "reference": reference}


def _nccl_choice(given: dict[str, Any], systems: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The NCCL choice map's system, node counts and sizes: as given, else the system of most
    nodes among those priced with their own release, the powers of two up to its nodes that
    fill whole scale-up domains, and 8 B to 512 MiB by factors of 4."""
    named = [name for name, entry in systems.items() if not entry["resolved"]["release_note"]]
    system = given.get("system") or max(named or systems, key=lambda n: systems[n]["nodes"])
    if system not in systems:
        raise _no_such("figures.nccl_choice.system", "system", system, systems, "gpu_systems")
    entry = systems[system]
    per_node, most = entry["gpus_per_node"], entry["nodes"]
    nodes = given.get("nodes") or [
        2**k for k in range(most.bit_length()) if 2**k * per_node > 1 and fills_domains(entry, 2**k)
    ]
    for index, count in enumerate(nodes):
        if count * per_node < 2:
            raise ConfigError(f"figures.nccl_choice.nodes[{index}]: {count} nodes hold no GPU pair")
        if not fills_domains(entry, count):
            raise ConfigError(f"figures.nccl_choice.nodes[{index}]: {count} nodes do not fill "
                              f"whole scale-up domains of {domain_size(entry)} GPUs")  # fmt: skip
    sizes = given.get("message_bytes") or [8 * 4**k for k in range(14)]
    return {"system": system, "nodes": list(nodes), "message_bytes": list(sizes)}


def _scale(
    config: dict[str, Any],
    figures: dict[str, Any],
    fabrics: dict[str, str],
    systems: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """The scale figure's CPU fabric and library rule, GPU system, N and sizes: as given,
    else the first real cluster's network and rule (MPICH's classic one where it names
    none, the first fabric where there is no cluster), the NCCL choice map's system, 8 to
    131,072 ranks by factors of 4 and the workloads' all-reduce sizes."""
    given = figures.get("scale", {})
    clusters = list(config.get("wallclock", {}).get("clusters", {}).values())
    first = clusters[0] if clusters else {}
    fabric = given.get("fabric") or first.get("fabric") or next(iter(fabrics))
    if fabric not in fabrics:
        raise _no_such("figures.scale.fabric", "fabric", fabric, fabrics, "fabrics")
    library = given.get("library") or first.get("library") or "mpich-classic"
    if library not in RULES:
        raise ConfigError(f"figures.scale.library: no decision rule {library!r}; known: "
                          f"{', '.join(RULES)}")  # fmt: skip
    system = given.get("system") or figures.get("nccl_choice", {}).get("system")
    if system is not None and system not in systems:
        raise _no_such("figures.scale.system", "system", system, systems, "gpu_systems")
    sizes = given.get("message_bytes") or sorted(workload_sizes(config.get("workloads", {})))
    return {
        "fabric": fabric, "library": library, "system": system,
        "ranks": list(given.get("ranks") or DEFAULT_SCALE_RANKS),
        "message_bytes": list(sizes or [8 * 4**k for k in range(14)]),
    }  # fmt: skip


def _libraries(config: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The MPI libraries: each from a package or a prefix; MPICH may come from this
    environment, the others need one of the two; the selection needs their algorithms."""
    libraries = config.get("libraries", {})
    for name, entry in libraries.items():
        if "package" in entry and "prefix" in entry:
            raise ConfigError(f"libraries.{name}: give a package or a prefix, not both")
        if not entry and not KINDS[name].bundled:
            raise ConfigError(f"libraries.{name}: give a package to install or a prefix")
        if not entry:
            _need_mpi(f"libraries.{name}")
    common = common_algorithms(config["algorithms"], list(libraries))
    if libraries and not common:
        raise ConfigError(
            f"libraries: no algorithm of algorithms is in every library ({', '.join(libraries)})"
        )
    return {name: dict(libraries[name]) for name in sorted(libraries)}  # one order, whatever
    # order a config (or a YAML dump of it) lists them in


def _variants(config: dict[str, Any], ranks: list[int]) -> list[Variant]:
    """Every algorithm of the config, with each of its parameter values."""
    names = config.get("algorithms", [])
    for index, name in enumerate(names):
        if name not in registry.ALGORITHMS:
            valid = ", ".join(registry.ALGORITHMS)
            raise ConfigError(f"algorithms[{index}]: unknown algorithm {name!r}; valid: {valid}")
    variants = []
    for name in names:
        axes = []
        for parameter in registry.ALGORITHMS[name].parameters:
            if parameter.name not in config and parameter.default is None:
                raise ConfigError(f"{parameter.name}: {name} needs this axis")
            default = None if parameter.name in config else [parameter.default]
            values = _axis(config, parameter.name, 1, None, default=default)
            for value in values:
                if not any(parameter.fits(value, n) for n in ranks):
                    raise ConfigError(
                        f"{parameter.name}: {value} is not {parameter.requirement} for any "
                        f"of the ranks {ranks}"
                    )
            axes.append([(parameter.name, value) for value in values])
        variants += [Variant(name, chosen) for chosen in itertools.product(*axes)]
    return variants


def _figures(
    config: dict[str, Any],
    variants: list[Variant],
    ranks: list[int],
    elements: list[int],
    fabrics: dict[str, str],
) -> dict[str, Any]:
    """The figure choices, each on its axis."""
    figures = dict(config.get("figures", {}))
    _figure_choice(figures, "crossover_ranks", ranks, "ranks")
    _figure_choice(figures, "counts_elements", elements, "elements")
    hotspot = figures.get("hotspot", {})
    _figure_choice(hotspot, "ranks", ranks, "ranks", "figures.hotspot")
    _figure_choice(hotspot, "elements", elements, "elements", "figures.hotspot")
    structure = figures.get("structure")
    if structure:
        if fabrics.get(structure["fabric"]) != "structured":
            raise ConfigError(
                f"figures.structure.fabric: {structure['fabric']} is not a two-level fabric"
            )
        _figure_choice(structure, "ranks", ranks, "ranks", "figures.structure")
    _headline(figures.get("headline"), variants, ranks, fabrics)
    return figures


def _headline(
    headline: dict[str, Any] | None, variants: list[Variant], ranks: list[int], fabrics: dict
) -> None:
    """The headline crossover figure shows variants of the grid named as their algorithm
    (at its defaults) that run at its N of the ranks axis, on fabrics of the config."""
    if not headline:
        return
    _figure_choice(headline, "ranks", ranks, "ranks", "figures.headline")
    for index, fabric in enumerate(headline.get("fabrics", [])):
        if fabric not in fabrics:
            raise _no_such(f"figures.headline.fabrics[{index}]", "fabric", fabric, fabrics,
                           "fabrics")  # fmt: skip
    by_name = {variant.name: variant for variant in variants}
    for index, name in enumerate(headline.get("algorithms", [])):
        if name not in by_name or name not in registry.ALGORITHMS:
            raise ConfigError(
                f"figures.headline.algorithms[{index}]: {name!r} is not an algorithm of "
                "the grid at its defaults"
            )
        if not by_name[name].runs_at(headline["ranks"]):
            raise ConfigError(
                f"figures.headline.algorithms[{index}]: {name} does not run at N = "
                f"{headline['ranks']}"
            )


def _workloads(config: dict[str, Any], ranks: list[int], fabrics: dict[str, str]) -> None:
    """Each workload's groups run on the ranks axis, over fabrics of the config."""
    for name, entry in config.get("workloads", {}).items():
        for group in ("tp", "dp"):
            where, fabric = f"workloads.{name}", entry.get(f"{group}_fabric")
            if entry[group] == 1:
                continue  # a group of one rank does no all-reduce
            if entry[group] not in ranks:
                raise ConfigError(
                    f"{where}.{group}: {entry[group]} is not on the ranks axis {ranks}"
                )
            if fabric is None:
                raise ConfigError(f"{where}.{group}_fabric: needed when {group} > 1")
            if fabric not in fabrics:
                raise _no_such(f"{where}.{group}_fabric", "fabric", fabric, fabrics, "fabrics")
        system = entry.get("gpu_system")
        if system is None:
            continue
        systems = config.get("gpu_systems", {})
        if system not in systems:
            raise _no_such(f"workloads.{name}.gpu_system", "system", system, systems,
                           "gpu_systems")  # fmt: skip
        domain = domain_gpus(systems[system])
        if domain % entry["tp"]:
            raise ConfigError(
                f"workloads.{name}.tp: {entry['tp']} does not divide {system}'s "
                f"{domain} GPUs of a scale-up domain"
            )
        needed = entry["tp"] * entry["dp"] * entry.get("pp", 1)
        gpus = systems[system]["nodes"] * systems[system]["gpus_per_node"]
        if needed > gpus:
            raise ConfigError(
                f"workloads.{name}: TP x DP{' x PP' if 'pp' in entry else ''} = {needed} GPUs, "
                f"{needed - gpus} more than {system}'s {gpus}"
            )


def pingpong_transport(entry: dict[str, Any]) -> str:
    """The transport a ping-pong fabric is measured over (queue unless it says mpi)."""
    return entry["pingpong"].get("transport", "queue")


def library_fabric(config: dict[str, Any], library: str, transport_fabric: str) -> str:
    """The fabric a library's model selection comes from: the one measured by that
    library's own ping-pong, else `transport_fabric` (this project's mpi transport's)."""
    for name, entry in config["fabrics"].items():
        if entry.get("pingpong", {}).get("library") == library:
            return name
    return transport_fabric


def _wallclock(config: dict[str, Any], fabrics: dict[str, str], basedir: Path) -> Wallclock:
    """The wallclock section: timed points, calibrated fabrics that exist, and cluster
    files that parse."""
    section = config["wallclock"]
    timed_ranks = _axis(section, "ranks", 2, MAX_RANKS, key_prefix="wallclock.")
    timed_elements = _axis(section, "elements", 1, None, key_prefix="wallclock.")
    names = section["algorithms"]
    for index, name in enumerate(names):
        if name not in registry.ALGORITHMS or registry.ALGORITHMS[name].required:
            raise ConfigError(
                f"wallclock.algorithms[{index}]: {name!r} is not an algorithm that runs at its "
                "defaults"
            )
        if name not in config["algorithms"]:
            raise ConfigError(f"wallclock.algorithms[{index}]: {name} is not in algorithms")
    transports = section["transports"]
    if "mpi" in transports:
        _need_mpi("wallclock.transports")
    _peers(section.get("peers", []), transports)
    calibration = section.get("fabrics", {})
    _calibration(config, transports, calibration, fabrics)
    clusters = section.get("clusters", {})
    _clusters(clusters, fabrics, basedir)
    return Wallclock(
        transports=list(transports),
        ranks=timed_ranks,
        elements=timed_elements,
        algorithms=list(names),
        peers=list(section.get("peers", [])),
        warmup=section["warmup"],  # the schema's defaults are filled in before the check
        iterations=section["iterations"],
        rounds=section["rounds"],
        min_time=section["min_time"],
        launches=section["launches"],
        library_ranks=_library_ranks(section["library_ranks"], timed_ranks, config),
        budget=section["budget"],
        noise_bound=section["noise_bound"],
        fabrics={t: calibration[t] for t in transports},
        clusters=clusters,
    )


def _library_ranks(
    library_ranks: list[int], timed_ranks: list[int], config: dict[str, Any]
) -> list[int]:
    """The N the libraries are timed at, each one of the timed N (sorted); unchecked, as
    unused, without libraries."""
    if not config.get("libraries"):
        return sorted(library_ranks)
    for index, ranks in enumerate(library_ranks):
        if ranks not in timed_ranks:
            raise ConfigError(
                f"wallclock.library_ranks[{index}]: {ranks} is not in wallclock.ranks"
            )
    return sorted(library_ranks)


def _peers(peers: list[str], transports: list[str]) -> None:
    """Each library peer asked for is installed here and has a transport to run on: which
    peers are timed is the config's choice, never what happens to be installed."""
    if "mpi" in peers and "mpi" not in transports:
        raise ConfigError("wallclock.peers: mpi (MPI_Allreduce) runs on the mpi transport, "
                          "which wallclock.transports does not list")  # fmt: skip
    if "gloo" in peers and importlib.util.find_spec("torch") is None:
        raise ConfigError("wallclock.peers: gloo needs torch, not installed here: "
                          "pip install -e '.[gloo]', or remove gloo from the list")  # fmt: skip


def _calibration(
    config: dict[str, Any], transports: list[str], calibration: dict[str, str],
    fabrics: dict[str, str],
) -> None:  # fmt: skip
    """Each timed transport has a ping-pong fabric measured over that transport."""
    for transport in transports:
        fabric = calibration.get(transport)
        if fabric is None:
            raise ConfigError(f"wallclock.fabrics: no fabric calibrated for {transport}")
        if fabrics.get(fabric) != "pingpong":
            raise ConfigError(f"wallclock.fabrics.{transport}: {fabric} is not a ping-pong fabric")
        measured_on = pingpong_transport(config["fabrics"][fabric])
        if measured_on != transport:
            raise ConfigError(
                f"wallclock.fabrics.{transport}: {fabric} is measured over {measured_on}"
            )


# A cluster's messages inside a node, without a single-node point-to-point log of its own:
# the shipped shared-memory osu_latency (two ranks on one Xeon socket, Open MPI), never the NIC.
DEFAULT_INTRA_FABRIC = "shm-xeon"


def _clusters(clusters: dict[str, Any], fabrics: dict[str, str], basedir: Path) -> None:
    """Each cluster's fabric is flat, and its osu_allreduce file parses."""
    for name, entry in clusters.items():
        key = f"wallclock.clusters.{name}"
        flat = [fabric for fabric, kind in fabrics.items() if kind in ("given", "measured")]
        if entry["fabric"] not in flat:
            raise _no_such(f"{key}.fabric", "flat fabric", entry["fabric"], flat, "fabrics")
        intra = entry.setdefault("intra_fabric", DEFAULT_INTRA_FABRIC)
        if intra not in flat:
            raise _no_such(f"{key}.intra_fabric", "flat fabric", intra, flat, "fabrics")
        logs = [("allreduce", entry)] + (
            [("node.allreduce", entry["node"])] if "node" in entry else []
        )
        for part, where in logs:
            try:
                read_measurements(basedir / where["allreduce"], "osu", where.get("table"))
            except FabricError as exc:
                raise ConfigError(f"{key}.{part}: {exc}") from None
        if "library" in entry and entry["library"] not in RULES:
            raise ConfigError(
                f"{key}.library: {entry['library']!r} is not one of {', '.join(RULES)}"
            )
        if "node" in entry and "library" not in entry:
            raise ConfigError(f"{key}.node: needs library (whose algorithm ran on the node)")
        if entry.get("ranks_per_node", 1) > entry["ranks"]:
            raise ConfigError(f"{key}.ranks_per_node: more than ranks ({entry['ranks']})")


def _need_mpi(key: str) -> None:
    """The mpi transport needs mpi4py (and the MPI library it finds) installed."""
    if importlib.util.find_spec("mpi4py") is None:
        raise ConfigError(f"{key}: mpi needs mpi4py and MPICH: pip install -e '.[mpi]'")


def _axis(
    config: dict[str, Any],
    key: str,
    low: int,
    high: int | None,
    default: list | None = None,
    key_prefix: str = "",
) -> list[int]:
    name = key_prefix + key
    try:
        values = expand_axis(config[key] if default is None else config.get(key, default))
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{name}: {exc}") from None
    if not values:
        raise ConfigError(f"{name}: the axis is empty")
    for value in values:
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high else f"at least {low}"
            raise ConfigError(f"{name}: every value must be {bound}, got {value}")
    return values


def _fabric(name: str, entry: dict[str, Any], basedir: Path, warnings: list[str]) -> str:
    """A fabric entry's kind, its measurement files parsed and fitted; a rough fit adds a
    line to `warnings`."""
    key = f"fabrics.{name}"
    if not FABRIC_NAME.match(name):
        raise ConfigError(f"{key}: names may use letters, digits, '_', '.', '-'")
    try:
        kind = kind_of(entry)
        if kind == "pingpong":
            sizes = expand_axis(entry["pingpong"]["sizes"])
    except (FabricError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{key}: {exc}") from None
    if kind == "pingpong":
        if entry.get("crossbar"):
            raise ConfigError(f"{key}.crossbar: applies to given link classes (alpha, beta)")
        if len(set(sizes)) < 3:
            raise ConfigError(
                f"{key}.pingpong.sizes: {len(set(sizes))} sizes leave the fit no confidence "
                "intervals; give at least 3"
            )
        return kind  # measured when the pipeline runs: its rule checks the fit
    if kind == "structured" and "crossbar" in entry:
        raise ConfigError(f"{key}.crossbar: give it on the fabric's intra or inter link class")
    for part, spec in link_parts(entry).items():
        where = f"{key}{'.' + part if part else ''}"
        if spec.get("crossbar") and "measurements" in spec:
            raise ConfigError(f"{where}.crossbar: applies to given link classes (alpha, beta)")
        try:
            warning = screen_link(spec, basedir)  # parsed and fitted: a bad file stops here
        except FabricError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        if warning:
            warnings.append(f"{where}: {warning}")
    return kind


def _figure_choice(
    section: dict[str, Any], key: str, allowed: list, axis: str, prefix: str = "figures"
) -> None:
    if key in section and section[key] not in allowed:
        raise ConfigError(f"{prefix}.{key}: {section[key]} is not on the {axis} axis {allowed}")
