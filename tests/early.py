"""Scenarios that run in other processes start when collection ends and run beside the in-process tests.

The suite alone keeps less than one of the machine's two cores busy (measured with /usr/bin/time: 148 s of CPU in
163 s of wall time), while a browser driving a `streamlit run` server and fresh `python -m core` processes spend
nearly all their time in those other processes. So a test module declares such a scenario as a job at import time,

    early.job("cli-run", run_on_the_sample_corpus)      # fn(tmp_dir) -> outcome, in a daemon thread

marks the tests that read it with `@pytest.mark.early("cli-run")`, and takes the outcome with
`early.outcome("cli-run")`, which waits for the job and raises the job's own error. `pytest_collection_finish`
(tests/conftest.py) starts the jobs of the collected tests only, each with a temporary directory of its own that
is removed at the end of the session.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

JOB_TIMEOUT_S = 600.0
"""How long a test waits for its job before failing (the slowest, the browser scenario, takes about 30 s)."""


class _Job:
    def __init__(self, name: str, fn: Callable[[Path], Any]):
        self.name = name
        self.fn = fn
        self.tmp: Path | None = None
        self.thread: threading.Thread | None = None
        self.value: Any = None
        self.error: BaseException | None = None

    def start(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix=f"early-{self.name}-"))
        self.thread = threading.Thread(target=self._run, name=f"early-{self.name}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.value = self.fn(self.tmp)
        except BaseException as exc:
            self.error = exc


_jobs: dict[str, _Job] = {}


def job(name: str, fn: Callable[[Path], Any]) -> None:
    """Declare the job `name`: `fn(tmp_dir)` runs in a daemon thread once a collected test is marked with it."""
    _jobs[name] = _Job(name, fn)


def start(names: set[str]) -> None:
    """Start the declared jobs among `names` that have not started yet."""
    for name in sorted(names):
        j = _jobs.get(name)
        if j is not None and j.thread is None:
            j.start()


def outcome(name: str) -> Any:
    """What the job returned, once it has finished (started now if it was not); its error is raised here."""
    j = _jobs[name]
    if j.thread is None:
        j.start()
    assert j.thread is not None
    j.thread.join(JOB_TIMEOUT_S)
    assert not j.thread.is_alive(), f"the early job {name!r} did not finish within {JOB_TIMEOUT_S:.0f} s"
    if j.error is not None:
        raise j.error
    return j.value


def clean_up() -> None:
    """Remove the jobs' temporary directories (a job still running keeps its own)."""
    for j in _jobs.values():
        if j.tmp is not None and (j.thread is None or not j.thread.is_alive()):
            shutil.rmtree(j.tmp, ignore_errors=True)
