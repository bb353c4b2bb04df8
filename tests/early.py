"""Scenarios that run in other processes start when collection ends and run beside the in-process tests.

The suite alone keeps less than one of the machine's two cores busy (measured with /usr/bin/time: 148 s of CPU in
163 s of wall time), while a browser driving a `streamlit run` server and fresh `python -m core` processes spend
nearly all their time in those other processes. So a test module declares such a scenario as a job at import time,

    early.job("cli-run", run_on_the_sample_corpus)      # fn(tmp_dir) -> outcome, in a daemon thread

marks the tests that read it with `@pytest.mark.early("cli-run")`, and takes the outcome with
`early.outcome("cli-run")`, which waits for the job and raises the job's own error. `pytest_collection_finish`
(tests/conftest.py) queues the jobs of the collected tests only, in the order their tests run, on one thread (so
one extra process at a time competes with the suite); each job gets a temporary directory of its own, removed at
the end of the session.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

JOB_TIMEOUT_S = 600.0
"""How long a test waits for its job (and the jobs queued before it) before failing; together they take about a
minute."""


class _Job:
    def __init__(self, name: str, fn: Callable[[Path], Any]):
        self.name = name
        self.fn = fn
        self.queued = False
        self.tmp: Path | None = None
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix=f"early-{self.name}-"))
        try:
            self.value = self.fn(self.tmp)
        except BaseException as exc:
            self.error = exc
        finally:
            self.done.set()


_jobs: dict[str, _Job] = {}


def job(name: str, fn: Callable[[Path], Any]) -> None:
    """Declare the job `name`: `fn(tmp_dir)` runs in a daemon thread once a collected test is marked with it."""
    _jobs[name] = _Job(name, fn)


def start(names: Sequence[str]) -> None:
    """Run the declared jobs among `names` that are not queued yet one after another, in that order, on one
    daemon thread: one extra process at a time beside the suite, the job the earliest test needs first."""
    queue = [_jobs[n] for n in names if n in _jobs and not _jobs[n].queued]
    if not queue:
        return
    for j in queue:
        j.queued = True
    threading.Thread(target=lambda: [j.run() for j in queue], name="early-jobs", daemon=True).start()


def outcome(name: str) -> Any:
    """What the job returned, once it has finished (queued now if it was not); its error is raised here."""
    j = _jobs[name]
    if not j.queued:
        start([name])
    assert j.done.wait(JOB_TIMEOUT_S), f"the early job {name!r} did not finish within {JOB_TIMEOUT_S:.0f} s"
    if j.error is not None:
        raise j.error
    return j.value


def clean_up() -> None:
    """Remove the jobs' temporary directories (a job still running keeps its own)."""
    for j in _jobs.values():
        if j.tmp is not None and j.done.is_set():
            shutil.rmtree(j.tmp, ignore_errors=True)
