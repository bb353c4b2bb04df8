"""Fixtures of the loop tests: a Workbench over a test-built corpus, parametrised over checkpointers."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from core.config import Settings
from core.persistence.checkpoints import Persistence, _postgres, _sqlite, memory_persistence
from core.service import Workbench
from tests.fakes import KeywordStore
from tests.loop.corpora import ruritania_corpus

BACKENDS = ["memory", "sqlite"] + (["postgres"] if os.environ.get("WORKBENCH_TEST_DATABASE_URL") else [])


def make_persistence(kind: str, tmp: Path) -> Persistence:
    """A fresh checkpointer + store of the given kind."""
    if kind == "memory":
        return memory_persistence()
    if kind == "sqlite":
        return _sqlite(Settings(data_dir=tmp))
    return _postgres(os.environ["WORKBENCH_TEST_DATABASE_URL"])


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def workbench_factory(tmp_path: Path, backend: str) -> Callable[..., Workbench]:
    """Build Workbenches sharing one persistence (so a second instance acts like a restarted process)."""
    persistence = make_persistence(backend, tmp_path)
    store = KeywordStore(ruritania_corpus())

    def make(**overrides: object) -> Workbench:
        settings = Settings(data_dir=tmp_path, **overrides)
        return Workbench(settings, store=store, persistence=persistence)

    yield make
    persistence.close()
