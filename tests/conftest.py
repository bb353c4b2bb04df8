"""Shared pytest fixtures. Keep each block documented; add new blocks below the existing ones.

Retrieval (Qdrant stores, ingest, the corpus CLI)
    embedder        session: the MiniLM embedder, loaded once for the whole run (every store shares it).
    make_settings   factory: Settings on a tmp data dir, embedded backend unless a qdrant_url is given.
    store           a fresh, empty store per test, parametrised over both backends:
                    "edge" (Qdrant Edge shard in tmp_path) and "server" (qdrant-client local mode).
    backend_settings  session: the factory behind `store`, (backend, data_dir, collection) -> Settings, for
                    module-scoped stores; backend is "edge" or "server".
    sample_store    session: an Edge store with the bundled sample corpus (core/corpus) ingested once. Read-only.
    report_line     call it with a line of text to have it printed in pytest's terminal summary (with or without -s).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

from core.config import Settings
from core.retrieval.embeddings import Embedder, get_embedder
from core.retrieval.ingest import SAMPLE_CORPUS_DIR, ingest_paths
from core.retrieval.store import Store, open_store

_REPORT_KEY = pytest.StashKey[list]()

for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "WORKBENCH_ENGINE", "WORKBENCH_DATABASE_URL", "QDRANT_URL"):
    os.environ.pop(_var, None)
"""Tests never reach a real model, database or Qdrant server by accident: each test that needs one sets it."""


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The process-wide embedder; loading it here once keeps the model load out of individual test timings."""
    return get_embedder()


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings(data_dir=tmp_path, ...) that ignore QDRANT_URL from the environment unless given explicitly."""

    def make(**overrides: object) -> Settings:
        values: dict[str, object] = {"data_dir": tmp_path / "data", "qdrant_url": None, "qdrant_api_key": None}
        values.update(overrides)
        return Settings(**values)

    return make


def _backend_settings(backend: str, data_dir: Path, collection: str = "test") -> Settings:
    """Settings for one backend: an Edge shard under data_dir, or a fresh qdrant-client local-mode collection."""
    if backend == "edge":
        return Settings(data_dir=data_dir, qdrant_url=None, qdrant_api_key=None, collection=collection)
    return Settings(data_dir=data_dir, qdrant_url=":memory:", collection=f"{collection}-{uuid.uuid4().hex[:8]}")


@pytest.fixture(scope="session")
def backend_settings() -> Callable[..., Settings]:
    """(backend, data_dir, collection="test") -> Settings; see `_backend_settings`."""
    return _backend_settings


@pytest.fixture(params=["edge", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[Store]:
    """An empty store on each backend; closed (and its Edge shard unlocked) after the test."""
    s = open_store(_backend_settings(request.param, tmp_path / "data"))
    yield s
    s.close()


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Store]:
    """The sample corpus ingested once into an Edge store under a session tmp dir."""
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("sample-data"), qdrant_url=None, qdrant_api_key=None, collection="sample"
    )
    s = open_store(settings)
    report = ingest_paths(s, sorted(SAMPLE_CORPUS_DIR.glob("*.md")), settings=settings)
    assert not report.failed, [r.error for r in report.failed]
    yield s
    s.close()


@pytest.fixture
def report_line(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Append a line to the terminal summary (for figures worth seeing on every run, e.g. recall)."""
    lines = request.config.stash.setdefault(_REPORT_KEY, [])
    return lines.append


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Print the lines collected through `report_line`."""
    lines = config.stash.get(_REPORT_KEY, [])
    if lines:
        terminalreporter.section("reported figures")
        for line in lines:
            terminalreporter.write_line(line)
