"""Checkpointer and key-value store factory: SQLite under the data dir by default, Postgres when configured."""

from __future__ import annotations

import atexit
import fcntl
import re
import sqlite3
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from core.config import Settings
from core.state import CHECKPOINT_TYPES

_lock = threading.Lock()
_open: dict[str, "Persistence"] = {}


COMPRESS_FROM_BYTES = 512
ZLIB_MSGPACK = "msgpack+zlib"


class CompressingSerializer(JsonPlusSerializer):
    """JsonPlus with zlib for larger msgpack payloads: savers store the whole state at every step, so the
    repeated text (answers, audit records, deficiency descriptions) compresses several times over."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        kind, data = super().dumps_typed(obj)
        if kind == "msgpack" and len(data) >= COMPRESS_FROM_BYTES:
            return ZLIB_MSGPACK, zlib.compress(data, 6)
        return kind, data

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, blob = data
        if kind == ZLIB_MSGPACK:
            return super().loads_typed(("msgpack", zlib.decompress(blob)))
        return super().loads_typed(data)


def serializer() -> JsonPlusSerializer:
    """The checkpoint serializer, allowed to revive exactly the workbench's own state types."""
    return CompressingSerializer(allowed_msgpack_modules=list(CHECKPOINT_TYPES))


class PersistenceError(RuntimeError):
    """The checkpoint backend cannot be used (unreachable, or a damaged file); the message says which and why."""


POSTGRES_CONNECT_TIMEOUT_S = 5
"""How long the first connection to Postgres may take before the backend is reported unreachable."""


RunLock = Callable[[str], ContextManager[bool]]
"""run_lock(thread_id) -> context yielding True when this process may run the session, False when another
process or replica holds it; released on exit, and by the operating system / server when the holder dies."""


@contextmanager
def _in_process_only(thread_id: str) -> Iterator[bool]:
    yield True


@dataclass
class Persistence:
    """A checkpointer and a store that share one backend, and the backend's cross-process run lock."""

    checkpointer: Any
    store: Any
    backend: str
    _closers: tuple[Any, ...] = ()
    run_lock: RunLock = _in_process_only

    def close(self) -> None:
        """Release connections."""
        for close in self._closers:
            close()


def open_persistence(settings: Settings) -> Persistence:
    """One Persistence per backend location per process (SQLite file or Postgres URL)."""
    key = settings.database_url or str(settings.checkpoint_path.resolve())
    with _lock:
        if key not in _open:
            _open[key] = _postgres(settings.database_url) if settings.database_url else _sqlite(settings)
        return _open[key]


def memory_persistence() -> Persistence:
    """In-memory checkpointer and store, for tests and throwaway runs."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    return Persistence(checkpointer=InMemorySaver(serde=serializer()), store=InMemoryStore(), backend="memory")


def _sqlite(settings: Settings) -> Persistence:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.sqlite import SqliteStore

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with _creation_lock(settings.data_dir):
        _refuse_empty_file(settings.checkpoint_path)
        conn = sqlite3.connect(str(settings.checkpoint_path), check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")  # writes the file header: a new file is never left empty
    for c in (conn, store_conn := sqlite3.connect(str(settings.checkpoint_path), check_same_thread=False, timeout=30,
                                                  isolation_level=None)):
        c.execute("PRAGMA journal_mode=WAL")
        # WAL with synchronous=NORMAL: every commit survives a killed process (it is in the OS cache); only a
        # power loss or OS crash can drop the last commits. FULL would fsync every checkpoint of every step.
        c.execute("PRAGMA synchronous=NORMAL")
        c.execute("PRAGMA busy_timeout=30000")
    saver = SqliteSaver(conn, serde=serializer())
    saver.setup()
    store = SqliteStore(store_conn)
    store.setup()
    return Persistence(checkpointer=saver, store=store, backend="sqlite", _closers=(conn.close, store_conn.close),
                       run_lock=_file_lock(settings.data_dir / "locks"))


@contextmanager
def _creation_lock(data_dir: Path) -> Iterator[None]:
    """Serialise opening the SQLite file among processes, so none sees another's brand-new file while it is
    still empty (a zero-length file must mean a truncated database, not a racing first start)."""
    with open(data_dir / ".checkpoints-open.lock", "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _refuse_empty_file(path: Path) -> None:
    """SQLite would take a zero-length file for a new database, and every session would vanish without a word."""
    if path.exists() and path.stat().st_size == 0:
        raise PersistenceError(
            f"the checkpoint database {path} is empty (0 bytes): it was truncated, so its sessions are not there. "
            "Restore it from a backup, or delete the file to start with no sessions."
        )


def _postgres(url: str) -> Persistence:
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    try:  # one probe first: the pool would retry in the background and time out after 30 s with a traceback
        psycopg.connect(url, connect_timeout=POSTGRES_CONNECT_TIMEOUT_S).close()
    except psycopg.Error as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise PersistenceError(f"cannot reach the database at WORKBENCH_DATABASE_URL: {reason}") from None
    pool = ConnectionPool(url, min_size=1, max_size=20, kwargs={"autocommit": True, "row_factory": dict_row,
                                                                "prepare_threshold": 0}, open=True)
    saver = PostgresSaver(pool, serde=serializer())
    store = PostgresStore(pool)
    with pool.connection() as conn:  # replicas starting together on a fresh database would race the migrations
        _wait_for_advisory_lock(conn, "workbench-schema-setup")
        try:
            saver.setup()
            store.setup()
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended('workbench-schema-setup', 0))")
    return Persistence(checkpointer=saver, store=store, backend="postgres", _closers=(pool.close,),
                       run_lock=_advisory_lock(url))


def _wait_for_advisory_lock(conn: Any, name: str, timeout_s: float = 300.0) -> None:
    """Take a session-level advisory lock by polling: a blocking pg_advisory_lock would keep a statement (and its
    snapshot) open, which the migrations' CREATE INDEX CONCURRENTLY in the lock holder waits for: a deadlock
    that Postgres cannot see."""
    deadline = time.monotonic() + timeout_s
    while not conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0)) AS got", (name,)).fetchone()["got"]:
        if time.monotonic() > deadline:
            raise TimeoutError(f"another process has been setting up the database schema for {timeout_s:.0f} s")
        time.sleep(0.1)


def _file_lock(directory: Path) -> RunLock:
    """One run per session among processes sharing a SQLite file (the CLI and the app): a flock per session."""

    @contextmanager
    def lock(thread_id: str) -> Iterator[bool]:
        directory.mkdir(parents=True, exist_ok=True)
        with open(directory / f"{re.sub(r'[^A-Za-z0-9_-]', '_', thread_id)}.lock", "a+b") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    return lock


def _advisory_lock(url: str) -> RunLock:
    """One run per session among replicas sharing Postgres: a session-level advisory lock on a connection of its
    own (not the pool's), so the server drops it when the holder dies; TCP keepalives catch a vanished host."""
    import psycopg

    @contextmanager
    def lock(thread_id: str) -> Iterator[bool]:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3")
            row = conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))",
                               (f"workbench-run:{thread_id}",)).fetchone()
            yield bool(row and row[0])  # closing the connection releases the lock

    return lock


def close_all() -> None:
    """Close every open backend (registered at exit)."""
    with _lock:
        for p in _open.values():
            p.close()
        _open.clear()


atexit.register(close_all)
