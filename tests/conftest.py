"""Shared pytest fixtures. Keep each block documented; add new blocks below the existing ones.

Retrieval (Qdrant stores, ingest, the corpus CLI)
    embedder        session: the MiniLM embedder, loaded once for the whole run (every store shares it).
    make_settings   factory: Settings on a tmp data dir, embedded backend unless a qdrant_url is given.
    store           a fresh, empty store per test, parametrised over the backends in STORE_BACKENDS:
                    "edge" (Qdrant Edge shard in tmp_path), "server" (qdrant-client local mode) and "qdrant" (a
                    real Qdrant server at WORKBENCH_TEST_QDRANT_URL; skipped with the reason when unset or
                    unreachable; each test's collection is dropped afterwards).
    backend_settings  session: the factory behind `store`, (backend, data_dir, collection) -> Settings, for
                    module-scoped stores; backend is one of STORE_BACKENDS (skips the test for an absent server).
    drop_collection   session: call it with a "qdrant" backend store to delete its collection from the server.
    sample_data_dir session: a data dir whose default collection holds the bundled sample corpus (core/corpus),
                    ingested once per run and closed again. Never open it: copy it with `copy_sample_data`.
    copy_sample_data  session: call it with a destination to get a private copy of sample_data_dir there.
    sample_store    session: an Edge store on a copy of sample_data_dir. Read-only.
    report_line     call it with a line of text to have it printed in pytest's terminal summary (with or without -s).

Workers (pytest-xdist, `-n 2` as scripts/test.sh runs the suite)
    Each worker is a session of its own: it loads the embedder once, reads the sample corpus the first worker to
    ask for it ingested (tests/sample_data.py), computes on one math thread, and gets a Postgres database of its own
    (`_worker_database`). Each early job runs on one worker; the others read its outcome from a file
    (tests/early.py).

Real processes (tests/forkserver.py, tests/early.py)
    fork_server     session: a ForkServer whose children are real processes that start with the app's modules
                    (torch, sentence-transformers, LangGraph) already imported; for tests that kill processes.
                    Started right after collection when a collected test uses it.
    early jobs      not fixtures: scenarios in other processes (the browser, fresh `python -m core` commands)
                    declared with `early.job`, started right after collection for the tests marked
                    `@pytest.mark.early(name)`, read with `early.outcome(name)`.

The CLI in-process (tests/cli.py)
    opened_stores   the stores the code under test opened through open_store; closed after the test.
    cli             factory: run `python -m core ARGS` through core.cli.dispatch.main in this process, with the environment
                    given (WORKBENCH_*/QDRANT_* cleared first); returns a CliResult (exit code, stdout, stderr).
"""

from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path

import pytest

from core.config import Settings, get_settings
from core.retrieval import registry as store_module
from core.retrieval.embeddings import Embedder, get_embedder
from core.retrieval.registry import open_store
from core.retrieval.store import Store
from tests import early
from tests.cli import CliResult, run_main
from tests.forkserver import ForkServer, close_session_server, session_server
from tests.sample_data import sample_data

REPO_ROOT = Path(__file__).resolve().parent.parent

_REPORT_KEY = pytest.StashKey[list]()

STORE_BACKENDS = ["edge", "server", "qdrant"]
QDRANT_TEST_URL = os.environ.get("WORKBENCH_TEST_QDRANT_URL")
QDRANT_TEST_API_KEY = os.environ.get("WORKBENCH_TEST_QDRANT_API_KEY")
"""A real Qdrant server for the "qdrant" backend: its own variable, so a QDRANT_URL meant for the app is never
written to by tests."""

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


@lru_cache(maxsize=1)
def qdrant_server_missing() -> str | None:
    """Why the "qdrant" backend cannot run (no URL, or the server does not answer), or None when it can."""
    if not QDRANT_TEST_URL:
        return "no Qdrant server to test against: set WORKBENCH_TEST_QDRANT_URL (e.g. http://127.0.0.1:6333)"
    request = urllib.request.Request(
        QDRANT_TEST_URL.rstrip("/") + "/readyz", headers={"api-key": QDRANT_TEST_API_KEY} if QDRANT_TEST_API_KEY else {}
    )
    try:
        with urllib.request.urlopen(request, timeout=3):
            return None
    except (OSError, urllib.error.URLError) as exc:
        return f"Qdrant server at WORKBENCH_TEST_QDRANT_URL={QDRANT_TEST_URL} is not reachable ({exc})"


def _backend_settings(backend: str, data_dir: Path, collection: str = "test") -> Settings:
    """Settings for one backend: an Edge shard under data_dir, or a fresh collection in qdrant-client local mode
    or on the test Qdrant server (skipping the calling test, with the reason, when that server is absent)."""
    if backend == "edge":
        return Settings(data_dir=data_dir, qdrant_url=None, qdrant_api_key=None, collection=collection)
    if backend == "qdrant":
        missing = qdrant_server_missing()
        if missing:
            pytest.skip(missing)
        return Settings(
            data_dir=data_dir,
            qdrant_url=QDRANT_TEST_URL,
            qdrant_api_key=QDRANT_TEST_API_KEY,
            collection=f"{collection}-{uuid.uuid4().hex[:8]}",
        )
    return Settings(data_dir=data_dir, qdrant_url=":memory:", collection=f"{collection}-{uuid.uuid4().hex[:8]}")


def _drop_collection(store: Store) -> None:
    """Delete a "qdrant" backend store's collection from the test server (Edge and local mode need no cleanup)."""
    store.client.delete_collection(store.collection)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def backend_settings() -> Callable[..., Settings]:
    """(backend, data_dir, collection="test") -> Settings; see `_backend_settings`."""
    return _backend_settings


@pytest.fixture(scope="session")
def drop_collection() -> Callable[[Store], None]:
    """store -> None: delete a "qdrant" backend store's collection from the test server."""
    return _drop_collection


@pytest.fixture(params=STORE_BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[Store]:
    """An empty store on each backend; closed (and its Edge shard unlocked, its server collection dropped) after."""
    s = open_store(_backend_settings(request.param, tmp_path / "data"))
    yield s
    if request.param == "qdrant":
        _drop_collection(s)
    s.close()


@pytest.fixture(scope="session")
def sample_data_dir(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Path:
    """The sample corpus ingested once into the default collection of a data dir (store closed again), shared
    with the early jobs (tests/sample_data.py)."""
    return sample_data(tmp_path_factory.mktemp("sample-data"))


@pytest.fixture(scope="session")
def copy_sample_data(sample_data_dir: Path) -> Callable[[Path], Path]:
    """dest -> dest: a private copy of sample_data_dir at dest (which must not exist yet)."""

    def copy(dest: Path) -> Path:
        shutil.copytree(sample_data_dir, dest)
        return dest

    return copy


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory: pytest.TempPathFactory, copy_sample_data: Callable[[Path], Path]) -> Iterator[Store]:
    """An Edge store holding the sample corpus, on a session copy of sample_data_dir."""
    data = copy_sample_data(tmp_path_factory.mktemp("sample-store") / "data")
    s = open_store(Settings(data_dir=data, qdrant_url=None, qdrant_api_key=None))
    yield s
    s.close()


@pytest.fixture
def opened_stores(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Store]]:
    """The stores opened through `core.retrieval.store.open_store` during the test (as the CLI and the service do);
    closed after the test, as at the end of a process, so their shards are free again."""
    opened: list[Store] = []

    def recording_open_store(*args: object, **kwargs: object) -> Store:
        s = open_store(*args, **kwargs)
        opened.append(s)
        return s

    monkeypatch.setattr(store_module, "open_store", recording_open_store)
    yield opened
    for s in opened:
        s.close()


@pytest.fixture
def cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], opened_stores: list[Store]
) -> Iterator[Callable[..., CliResult]]:
    """(*args, **env) -> CliResult: `python -m core ARGS` in-process, with WORKBENCH_*/QDRANT_* cleared and `env` set.

    Every store the commands open is closed after the test (see `opened_stores`).
    """

    def run(*args: str, **env: str) -> CliResult:
        for key in [k for k in os.environ if k.startswith(("WORKBENCH_", "QDRANT_"))]:
            monkeypatch.delenv(key)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        get_settings.cache_clear()
        return run_main(list(args), capsys)

    yield run
    get_settings.cache_clear()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "early(name): the test reads the outcome of the early job `name` (tests/early.py)"
    )
    early.prepare()
    _one_math_thread_per_worker(config)
    _worker_database()


MATH_THREADS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _one_math_thread_per_worker(config: pytest.Config) -> None:
    """With pytest-xdist workers on a two-core machine, each worker (and each process it starts) computes on one
    thread: with torch's two threads per worker beside the early jobs, in-process tests ran up to four times slower
    than alone and the two workers took as long as one process (266 s; 228 s with one thread each)."""
    if "PYTEST_XDIST_WORKER" in os.environ or not getattr(config.option, "numprocesses", None):
        return
    for var in MATH_THREADS:
        os.environ.setdefault(var, "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


PG_TEST_ENV = "WORKBENCH_TEST_DATABASE_URL"


def _worker_database() -> None:
    """Under pytest-xdist, each worker gets a Postgres database of its own (dropped and made anew), so that two
    workers' tests never see each other's checkpoints, sessions or advisory locks."""
    worker, url = os.environ.get("PYTEST_XDIST_WORKER"), os.environ.get(PG_TEST_ENV)
    if not worker or not url:
        return
    import psycopg
    from psycopg import sql

    name = f"workbench_test_{worker}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    os.environ[PG_TEST_ENV] = urllib.parse.urlsplit(url)._replace(path=f"/{name}").geturl()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that read an early job run last (in their order), so every in-process test runs beside the jobs
    instead of waiting behind the first test that reads one."""
    items.sort(key=lambda item: item.get_closest_marker("early") is not None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the fork server and the early jobs (tests/early.py) as soon as the collected tests are known to need
    them, so that they run on the otherwise idle core while the tests before them run."""
    if session.config.option.collectonly:
        return
    if any("fork_server" in getattr(item, "fixturenames", ()) for item in session.items):
        session_server(REPO_ROOT, dict(os.environ))
    early.start(list(dict.fromkeys(m.args[0] for item in session.items for m in item.iter_markers("early"))))


def pytest_sessionfinish(session: pytest.Session) -> None:
    early.clean_up()
    close_session_server()


@pytest.fixture(scope="session")
def fork_server() -> ForkServer:
    """The session's fork server (started at collection time, see `pytest_collection_finish`; stopped when the
    session finishes, after the early jobs that may use it too)."""
    return session_server(REPO_ROOT, dict(os.environ))


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
