"""The sample corpus ingested once per test run, for the session fixtures and the early jobs alike (an early job
starts before any fixture, so the first of them to ask builds it). On two xdist workers the worker that asks first
ingests it into the run's shared folder and the other waits for it there: encoding the corpus is several seconds of
CPU. Whichever worker asks first builds it, so a run in which only one worker needs it (`pytest -n 2 tests/loop`)
does not wait for a worker that never will."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from core.config import Settings
from core.retrieval.ingest import SAMPLE_CORPUS_DIR, ingest_paths
from core.retrieval.registry import open_store
from tests import early

_lock = threading.Lock()
_built: list[Path] = []


def sample_data(root: Path) -> Path:
    """A data dir whose default collection holds the sample corpus (its store closed again), the same for every
    caller of this process: ingested under `root` by the first caller without xdist, in the run's shared folder by
    the worker that asks first (the others wait for it there). Treat it as read-only: copy it to change it."""
    with _lock:
        if not _built:
            if os.environ.get("PYTEST_XDIST_WORKER") is None:
                _built.append(_ingest(root / "data"))
            elif _claim(early.shared_dir()):
                data = _ingest(early.shared_dir() / "sample-data")
                (early.shared_dir() / "sample-data.ready").touch()
                _built.append(data)
            else:
                _built.append(_wait_for(early.shared_dir()))
        return _built[0]


def _claim(shared: Path) -> bool:
    """Whether this worker is the first to ask for the sample data (it then builds it): creating the claim file
    succeeds in one process only."""
    try:
        os.close(os.open(shared / "sample-data.claimed", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def _ingest(data: Path) -> Path:
    settings = Settings(data_dir=data, qdrant_url=None, qdrant_api_key=None)
    store = open_store(settings)
    try:
        report = ingest_paths(store, sorted(SAMPLE_CORPUS_DIR.glob("*.md")), settings=settings)
        assert not report.failed, [r.error for r in report.failed]
    finally:
        store.close()
    return data


def _wait_for(shared: Path) -> Path:
    """The first worker's sample data, once it says it is complete."""
    deadline = time.monotonic() + early.JOB_TIMEOUT_S
    while not (shared / "sample-data.ready").exists():
        assert time.monotonic() < deadline, "the worker that claimed the sample corpus did not ingest it in time"
        time.sleep(early.POLL_S)
    return shared / "sample-data"
