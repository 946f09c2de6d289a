"""The package's layers: data flows one way, and each module imports only its own layer or
the ones below it (README's layout map)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "collectives"
LAYERS = {"comm": 1, "algorithms": 1, "transport": 1, "model": 2, "registry": 2, "run": 3,
          "study": 4, "__main__": 3, "__init__": 0}  # fmt: skip
# Inside the lowest layer the algorithms see only the Communicator, and the transports
# never the algorithms.
MAY_IMPORT = {"algorithms": {"comm", "algorithms"}, "transport": {"comm", "transport"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every collectives module that `path` imports, resolved to absolute names."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return {name for name in found if name.split(".")[0] == "collectives"}


def top(name: str) -> str:
    """collectives.model.cost -> model; collectives -> __init__."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_module_imports_from_a_layer_above_it(path):
    here = top(module_name(path))
    for name in imported(path):
        there = top(name)
        if there not in LAYERS:  # `from collectives import registry` and the like
            continue
        assert LAYERS[there] <= LAYERS[here], f"{module_name(path)} imports {name}"
        if here in MAY_IMPORT and there != "__init__":
            assert there in MAY_IMPORT[here], f"{module_name(path)} imports {name}"


def test_the_transports_share_only_the_common_parts():
    for path in (PACKAGE / "transport" / "queue").glob("*.py"):
        assert not any(name.startswith("collectives.transport.mpi") for name in imported(path))
    mpi = imported(PACKAGE / "transport" / "mpi.py")
    assert not any(name.startswith("collectives.transport.queue") for name in mpi)


def test_reading_the_config_starts_no_transport():
    code = (
        "import sys, collectives.study.config, collectives.study.paths; "
        "print(sorted(m for m in sys.modules if m.startswith('collectives.transport.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = ast.literal_eval(done.stdout)
    assert not [m for m in loaded if m.split(".")[2] in ("queue", "mpi", "launch")], loaded


def test_a_measure_job_loads_no_analysis_stack(tmp_path):
    """Each grid point is one process: it starts on numpy and the transport alone."""
    code = (
        "import sys; from collectives.run import cli; "
        f"cli.main(['measure', '--algorithm', 'ring', '--ranks', '2', '--elements', '8', "
        f"'--output', {str(tmp_path / 'record.json')!r}]); "
        "print(sorted(m.split('.')[0] if not m.startswith('collectives') else m "
        "for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(ast.literal_eval(done.stdout))
    assert not loaded & {"pandas", "matplotlib", "seaborn", "scipy", "yaml", "jsonschema"}
    assert not [m for m in loaded if m.startswith("collectives.study")]


RULE_FILES = sorted((PACKAGE.parents[1] / "workflow" / "rules").glob("*.smk"))
IMPORT_LINE = re.compile(r"^\s*(?:from|import)\s+(collectives[\w.]*)", re.MULTILINE)


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_a_rule_file_reads_the_study_layer_and_nothing_below_it(path):
    """The rule files are the pipeline's thinnest layer: what they decide is the study's."""
    found = IMPORT_LINE.findall(path.read_text())
    below = [name for name in found if not name.startswith("collectives.study")]
    assert not below, f"{path.name} imports {below}"


def test_the_rule_files_are_found():
    assert {"common.smk", "measure.smk", "resources.smk"} <= {p.name for p in RULE_FILES}
