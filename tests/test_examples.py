"""The pages' command blocks: each runs here, or says on the page why it cannot.

Every ```bash and ```console block of the README and the docs is collected from the
Markdown itself. A block preceded by `<!-- example not run: REASON -->` is skipped with
that reason; every other one runs in a scratch directory, with `.venv/bin/` the running
interpreter's. A bash block must exit 0. A console block's `$ ` lines are run one by one,
and what each prints must be the lines that follow it (`…` standing for any text).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.test_docs import REPO, USER_DOCS

BLOCK = re.compile(r"^```(bash|console)\n(.*?)^```$", re.M | re.S)
NOT_RUN = re.compile(r"<!-- example not run: (.+?) -->\n$")
TIMEOUT_S = 300


@dataclass(frozen=True)
class Example:
    """One command block: where it is, its language and text, why it is not run if so."""

    page: str
    line: int
    language: str
    text: str
    not_run: str | None


def examples() -> list[Example]:
    """Every bash and console block of the user docs, in page order."""
    found = []
    for doc in USER_DOCS:
        text = doc.read_text()
        for block in BLOCK.finditer(text):
            before = text[: block.start()]
            reason = NOT_RUN.search(before[-300:])
            found.append(
                Example(str(doc.relative_to(REPO)), before.count("\n") + 1, block[1], block[2],
                        reason[1] if reason else None)
            )  # fmt: skip
    return found


EXAMPLES = examples()


def test_the_pages_hold_command_blocks_and_most_say_why_they_cannot_run():
    assert len(EXAMPLES) >= 15
    assert [e for e in EXAMPLES if e.not_run is None], "no block runs"
    for example in EXAMPLES:
        assert example.not_run is None or len(example.not_run) > 10, example


@pytest.fixture
def scratch(tmp_path):
    """A scratch directory whose .venv is the running interpreter's environment."""
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
    return tmp_path


def run(command: str, where: Path) -> subprocess.CompletedProcess:
    bin_dir = str(Path(sys.executable).parent)
    environment = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", command], cwd=where, env=environment,
        capture_output=True, text=True, timeout=TIMEOUT_S,
    )  # fmt: skip


def expected_lines(lines: list[str]) -> re.Pattern:
    """The printed lines a console block shows, `…` standing for any text."""
    pattern = "\n".join(".*".join(map(re.escape, line.split("…"))) for line in lines)
    return re.compile(rf"^{pattern}$")


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.page}:{e.line}" for e in EXAMPLES])
def test_each_command_block_runs_as_the_page_says(example, scratch):
    if example.not_run:
        pytest.skip(example.not_run)
    if example.language == "bash":
        done = run(example.text, scratch)
        assert done.returncode == 0, done.stderr[-2000:]
        return
    steps = re.split(r"^\$ ", example.text, flags=re.M)[1:]
    assert steps, f"{example.page}:{example.line}: a console block without a $ line"
    for step in steps:
        command, *shown = step.rstrip("\n").split("\n")
        done = run(command, scratch)
        printed = (done.stdout + done.stderr).rstrip("\n")
        assert expected_lines(shown).match(printed), f"$ {command}\n{printed}"
