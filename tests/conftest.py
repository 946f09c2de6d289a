"""Shared fixtures: every test must leave no rank process and no shared-memory segment.

Under pytest-xdist (`pytest -n auto`), a module's tests run on one worker, and the end-to-end
tests (tests/workflow/, marked `pipeline`: they share one scratch run) all on one, first.
Each worker holds a shared lock on the machine while a test runs; a test marked `clock`, and
the shared run's timing jobs, hold it exclusively, since their clock readings must agree.
Segments left in /dev/shm are checked over the whole run, since another worker's test may
be using one when a test of this worker ends. A run beside another on the same machine
(COLLECTIVES_TEST_MACHINE names their shared lock file: CI runs the cluster test beside the
suite) shares the lock likewise, and leaves the check of /dev/shm to its caller.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import SHARED_MACHINE, WORKER, child_pids, machine, segments

PIPELINE = "pipeline"  # the marker, and the xdist work unit, of the end-to-end tests
CLOCK = "clock"  # the marker of a test whose clock readings must agree


@pytest.fixture(autouse=True)
def leaves_nothing_behind() -> Iterator[None]:
    """Fail any test after which a child process or a /dev/shm segment is left over."""
    before = segments()
    yield
    assert mp.active_children() == []
    assert child_pids(os.getpid()) == []
    if WORKER is None and SHARED_MACHINE is None:  # else over the whole run (sessionfinish)
        left = segments() - before
        assert not left, f"shared-memory segments left behind: {left}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Each test, the fixtures its setup makes included, with the machine shared with the
    other workers' tests, or alone where it reads clocks."""
    with machine(item.config, alone=item.get_closest_marker(CLOCK) is not None):
        return (yield)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """(xdist controller) Every worker's path to the one lock file of the machine."""
    node.workerinput["machine_lock"] = str(node.config._machine_lock)


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers; under xdist's controller, make the machine's lock file and note
    the segments there are before any worker starts."""
    config.addinivalue_line("markers", f"{PIPELINE}: runs the workflow end to end (slow)")
    config.addinivalue_line("markers", f"{CLOCK}: its clock readings must agree (runs alone)")
    if WORKER is None and getattr(config.option, "numprocesses", None):
        own = Path(tempfile.gettempdir()) / f"collectives-tests-{os.getpid()}.lock"
        config._machine_lock = Path(SHARED_MACHINE or own)  # type: ignore[attr-defined]
        if SHARED_MACHINE is None:
            config._segments_before = segments()  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """(xdist controller) Fail the run if shared-memory segments were left behind."""
    before = getattr(session.config, "_segments_before", None)
    if before is None:  # not the controller, or the machine's lock and check are the caller's
        return
    session.config._machine_lock.unlink(missing_ok=True)  # type: ignore[attr-defined]
    left = segments() - before
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(f"shared-memory segments left behind: {sorted(map(str, left))}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


END_TO_END = Path(__file__).parent / "workflow"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the end-to-end tests, and put them first (the longest unit of work for xdist)."""
    for item in items:
        if END_TO_END in item.path.parents:
            item.add_marker(PIPELINE)
    items.sort(key=lambda item: item.get_closest_marker(PIPELINE) is None)  # stable


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Whole modules to a worker, and all the end-to-end modules to one, in collection order
    (the end-to-end ones first)."""
    from xdist.scheduler import LoadScopeScheduling

    end_to_end = f"{END_TO_END.relative_to(config.rootpath).as_posix()}/"

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return PIPELINE if module.startswith(end_to_end) else module

    config.option.loadscopereorder = False
    return ByModule(config, log)
