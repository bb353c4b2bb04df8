"""Fixtures of the eval tests: Workbenches over the tiny FD/SV corpus, in-memory persistence, no model load."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from core.config import Settings
from core.persistence.checkpoints import memory_persistence
from core.service import Workbench
from tests.eval.corpus import RecordingStore, freedonia_corpus


@pytest.fixture
def make_workbench(tmp_path: Path) -> Callable[..., Workbench]:
    """Workbench(settings, store=RecordingStore(docs), persistence=memory) with settings overrides."""

    def make(docs=None, **overrides: object) -> Workbench:
        store = RecordingStore(freedonia_corpus() if docs is None else docs)
        return Workbench(Settings(data_dir=tmp_path, **overrides), store=store, persistence=memory_persistence())

    return make
