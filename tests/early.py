"""Scenarios that run in other processes start when collection ends and run beside the in-process tests.

The suite alone keeps less than one of the machine's two cores busy (measured with /usr/bin/time: 148 s of CPU in
163 s of wall time), while a browser driving a `streamlit run` server and fresh `python -m core` processes spend
nearly all their time in those other processes. So a test module declares such a scenario as a job at import time,

    early.job("cli-run", run_on_the_sample_corpus)      # fn(tmp_dir) -> outcome, in a daemon thread

marks the tests that read it with `@pytest.mark.early("cli-run")`, and takes the outcome with
`early.outcome("cli-run")`, which waits for the job and raises the job's own error. `pytest_collection_finish`
(tests/conftest.py) queues the jobs of the collected tests only, the long ones (the browser scenarios) on one
thread and the short ones on another, so that a short job's test does not wait for a browser to finish; each job
gets a temporary directory of its own, removed at the end of the session.

Under pytest-xdist (`-n 2`, as `bash scripts/test.sh` runs it) every worker collects every test, but each job
runs on one worker only (the long ones in turn from the first, gw0, the others on the last, so the two browsers and
the fresh `python -m core` processes run side by side): it writes each outcome to a file in the run's shared folder
(`EARLY_DIR_ENV`, made by the controller in `prepare`), and a test on another worker waits for that file. The controller removes
the folder when every worker has finished (`clean_up`).
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

JOB_TIMEOUT_S = 600.0
"""How long a test waits for its job (and the jobs queued before it) before failing; together they take about a
minute."""


EARLY_DIR_ENV = "PYTEST_EARLY_JOBS_DIR"
"""The run's shared folder of job outcomes and job directories, set by the controller for its workers (not a
WORKBENCH_ variable: the CLI tests clear those while jobs run)."""
POLL_S = 0.2


def shared_dir() -> Path:
    """The run's folder that every process of it sees (made by the controller, removed when all have finished)."""
    return Path(os.environ[EARLY_DIR_ENV])


def _runs(job: _Job) -> bool:
    """Whether this process runs the job: a run without pytest-xdist runs every job; under xdist the long ones (the
    browser scenarios) go round the workers in the order they were declared and the others to the last worker, so
    the queues run side by side and no worker carries them all beside its share of the tests."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return True
    count = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    if job.long:
        longs = [j for j in _jobs.values() if j.long]
        return worker == f"gw{longs.index(job) % count}"
    return worker == f"gw{count - 1}"


def prepare() -> None:
    """Make the run's shared folder (in the controller, or the only process): workers inherit its path."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        os.environ[EARLY_DIR_ENV] = tempfile.mkdtemp(prefix="early-jobs-")


class _Job:
    def __init__(self, name: str, fn: Callable[[Path], Any], long: bool):
        self.name = name
        self.fn = fn
        self.long = long
        self.queued = False
        self.tmp: Path | None = None
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.tmp = Path(tempfile.mkdtemp(prefix=f"{self.name}-", dir=shared_dir()))
            self.value = self.fn(self.tmp)
        except BaseException as exc:
            self.error = exc
        try:
            if "PYTEST_XDIST_WORKER" in os.environ:  # only another worker reads the file
                self._publish()
        finally:
            self.done.set()

    def _publish(self) -> None:
        """Write the outcome where the other workers read it (an outcome that cannot be pickled is passed on as
        an error saying so)."""
        try:
            data = pickle.dumps((self.value, self.error))
        except Exception as exc:
            failure = RuntimeError(f"the outcome of {self.name!r} cannot be passed to another worker: {exc!r}")
            data = pickle.dumps((None, RuntimeError(f"{failure}; the job's own error: {self.error!r}")))
        part = shared_dir() / f"{self.name}.part"
        part.write_bytes(data)
        part.replace(shared_dir() / f"{self.name}.outcome")


_jobs: dict[str, _Job] = {}


def job(name: str, fn: Callable[[Path], Any], *, long: bool = False) -> None:
    """Declare the job `name`: `fn(tmp_dir)` runs in a daemon thread once a collected test is marked with it; a
    `long` job (a browser scenario) runs on the thread of long jobs, apart from the short ones, and on two workers
    the long jobs go round the workers (`_runs`)."""
    _jobs[name] = _Job(name, fn, long)


def start(names: Sequence[str]) -> None:
    """Run the declared jobs among `names` that are not queued yet on two daemon threads, the long jobs one after
    another on one and the short ones on the other (at most two extra processes beside this process's tests: a
    short job's test need not wait for a browser scenario to end), each in the order of `names`."""
    wanted = [_jobs[n] for n in names if n in _jobs and not _jobs[n].queued and _runs(_jobs[n])]
    for j in wanted:
        j.queued = True
    for kind, queue in (("long", [j for j in wanted if j.long]), ("short", [j for j in wanted if not j.long])):
        if queue:
            threading.Thread(
                target=lambda queue=queue: [j.run() for j in queue], name=f"early-jobs-{kind}", daemon=True
            ).start()


def outcome(name: str) -> Any:
    """What the job returned, once it has finished (queued now if it was not; on another worker, read from the
    file the first worker writes); its error is raised here."""
    j = _jobs[name]
    if not _runs(j):
        return _read(name)
    if not j.queued:
        start([name])
    assert j.done.wait(JOB_TIMEOUT_S), f"the early job {name!r} did not finish within {JOB_TIMEOUT_S:.0f} s"
    if j.error is not None:
        raise j.error
    return j.value


def _read(name: str) -> Any:
    """The outcome the worker that runs the job `name` wrote, waiting for it."""
    path = shared_dir() / f"{name}.outcome"
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while not path.exists():
        assert time.monotonic() < deadline, f"the early job {name!r} did not finish within {JOB_TIMEOUT_S:.0f} s"
        time.sleep(POLL_S)
    value, error = pickle.loads(path.read_bytes())
    if error is not None:
        raise error
    return value


def clean_up() -> None:
    """At the end of a process's session: a process first waits for the jobs it queued (a test on another worker
    may still be waiting for their outcome, and they are daemon threads); then the controller
    (or the only process), once every worker has finished, removes the shared folder."""
    for j in _jobs.values():
        if j.queued:
            j.done.wait(JOB_TIMEOUT_S)
    if "PYTEST_XDIST_WORKER" not in os.environ and EARLY_DIR_ENV in os.environ:
        shutil.rmtree(os.environ.pop(EARLY_DIR_ENV), ignore_errors=True)


ENV_TRIES = 5


def retried(call: Callable[[], Any], errors: tuple[type[BaseException], ...]) -> Any:
    """`call()`, made again (up to ENV_TRIES times) when it raises one of `errors`: a job's thread reading
    os.environ while a test on the main thread changes it (monkeypatch.setenv / delenv) gets a KeyError or a
    RuntimeError from the iteration."""
    for attempt_no in range(1, ENV_TRIES + 1):
        try:
            return call()
        except errors:
            if attempt_no == ENV_TRIES:
                raise
            time.sleep(0.1)
    raise AssertionError("unreachable")


def environment() -> dict[str, str]:
    """A copy of os.environ for a job's thread (`retried`)."""
    return retried(lambda: dict(os.environ), (KeyError, RuntimeError))
