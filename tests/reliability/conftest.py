"""Fixtures of the reliability tests: checkpointer backends with a stated skip reason, and the Postgres URL.

persistence     a fresh Persistence per test, parametrised over "sqlite" (a file in tmp_path) and "postgres"
                (WORKBENCH_TEST_DATABASE_URL; skipped with the reason when unset).
pg_url          the Postgres URL, or a skip with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.config import Settings
from core.persistence.checkpoints import Persistence, _postgres, _sqlite

PG_ENV = "WORKBENCH_TEST_DATABASE_URL"
PG_SKIP = (
    f"no Postgres to test against: set {PG_ENV} "
    "(scripts/test.sh starts a throwaway server when PostgreSQL is installed)"
)
BACKENDS = ["sqlite", "postgres"]


def postgres_url() -> str:
    """The test database URL, or skip the calling test saying why."""
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(PG_SKIP)
    return url


@pytest.fixture
def pg_url() -> str:
    return postgres_url()


@pytest.fixture(params=BACKENDS)
def persistence(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Persistence]:
    """A checkpointer + store on SQLite (one file) or Postgres, closed after the test."""
    p = _postgres(postgres_url()) if request.param == "postgres" else _sqlite(Settings(data_dir=tmp_path))
    yield p
    p.close()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, copy_sample_data: Callable[[Path], Path]) -> Path:
    """A data dir holding the sample corpus in a Qdrant Edge shard (closed, for the children to open)."""
    return copy_sample_data(tmp_path_factory.mktemp("crash") / "data")


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    """None for the SQLite file in the data dir, else the Postgres URL (skipped with the reason when unset)."""
    return postgres_url() if request.param == "postgres" else None
