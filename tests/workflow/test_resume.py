"""A run cut short resumes with the commands the README's Quick start gives: the same
command again (the default profile reruns the jobs it interrupted), after
`snakemake --unlock` when the run was killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from base64 import urlsafe_b64encode
from pathlib import Path

import pytest

from tests.support.workflow import REPO, SNAKEMAKE, TINY_RUN, tiny_workflow

RUN = TINY_RUN
OUTPUT = "results/tables/measurements.csv"  # the first of the aggregate job's two outputs
UNLOCK = "snakemake --unlock"


def quick_start() -> str:
    """The README's Quick start section."""
    readme = (REPO / "README.md").read_text()
    return readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]


def _as_from_a_terminal() -> None:
    """Ctrl-C's default action, whatever this test inherited: a command started in the
    background of a non-interactive shell (nohup ... &) ignores SIGINT, and so would the
    run, which would then finish as if never interrupted."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted(work: Path, signum: int) -> bool:
    """Start RUN in `work` and send `signum` to it and its jobs (as Ctrl-C does to the
    terminal's process group) the moment a job has written its output but not yet ended:
    the case that stops the next run with IncompleteFilesException. False when the job
    ended in the few microseconds before the signal and the run completed (a loaded
    machine can be that slow to deliver it): nothing was interrupted."""
    run = subprocess.Popen(RUN, cwd=work, start_new_session=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, preexec_fn=_as_from_a_terminal)  # fmt: skip
    output = work / OUTPUT
    deadline = time.monotonic() + 120
    while not output.exists() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    os.killpg(run.pid, signal.SIGSTOP)  # frozen while its job is still incomplete
    # Snakemake's mark of a job under way: its output's path, base64-encoded
    mark = work / ".snakemake/incomplete" / urlsafe_b64encode(OUTPUT.encode()).decode()
    assert mark.exists(), "the job ended before the run could be interrupted"
    os.killpg(run.pid, signum)
    os.killpg(run.pid, signal.SIGCONT)
    if run.wait(timeout=120) == 0:
        return False
    assert output.exists() and mark.exists()
    return True


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_an_interrupted_run_resumes_with_the_readme_s_commands(tmp_path, signum):
    assert UNLOCK in quick_start() and "resumes with the same command" in quick_start()
    attempts = (tiny_workflow(tmp_path / f"attempt{n}") for n in range(3))
    work = next((w for w in attempts if interrupted(w, signum)), None)
    assert work is not None, "three runs ended before the signal reached them"
    if signum == signal.SIGKILL:  # nothing could remove the lock
        assert subprocess.run([*SNAKEMAKE, "--unlock"], cwd=work).returncode == 0
    resumed = subprocess.run(RUN, cwd=work, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    jobs = resumed.stdout + resumed.stderr
    assert "(Rule: costs)" in jobs and "(Rule: measure)" not in jobs  # resumed, not restarted
    assert (work / "results/tables/costs.csv").stat().st_size > 0
