"""The sample corpus ingested once per test process, for the session fixtures and the early jobs alike (an early
job starts before any fixture, so the first of them to ask builds it)."""

from __future__ import annotations

import threading
from pathlib import Path

from core.config import Settings
from core.retrieval.ingest import SAMPLE_CORPUS_DIR, ingest_paths
from core.retrieval.registry import open_store

_lock = threading.Lock()
_built: list[Path] = []


def sample_data(root: Path) -> Path:
    """A data dir whose default collection holds the sample corpus (its store closed again): ingested under `root`
    by the first caller in this process, the same dir for every later caller. Treat it as read-only: copy it to
    change it."""
    with _lock:
        if not _built:
            data = root / "data"
            settings = Settings(data_dir=data, qdrant_url=None, qdrant_api_key=None)
            store = open_store(settings)
            try:
                report = ingest_paths(store, sorted(SAMPLE_CORPUS_DIR.glob("*.md")), settings=settings)
                assert not report.failed, [r.error for r in report.failed]
            finally:
                store.close()
            _built.append(data)
        return _built[0]
