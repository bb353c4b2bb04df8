"""Checkpointer and key-value store factory: SQLite under the data dir by default, Postgres when configured."""

from __future__ import annotations

import atexit
import importlib
import sqlite3
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from core.config import Settings
from core.domain.answer import Answer, AnswerSection, Claim, Gap, Quote, StruckClaim
from core.domain.plan import Aspect, PlanItem, PlannedJurisdiction, ResearchPlan
from core.domain.records import (
    AnalystDeficiency,
    ApprovalPolicy,
    Citation,
    DecisionRecord,
    Deficiency,
    DeficiencyType,
    EvaluationCycleRecord,
    Evidence,
    HumanActRecord,
    ModelCall,
    ResolutionStatus,
    ReviewDecision,
    ReviewResponse,
    Severity,
    StrikeRequest,
)
from core.persistence.run_locks import RunLock, advisory_lock, file_lock, in_process_only, unlock_all

_lock = threading.Lock()
_open: dict[str, Persistence] = {}


CHECKPOINT_TYPES: tuple[type, ...] = (
    Aspect,
    PlannedJurisdiction,
    PlanItem,
    ResearchPlan,
    Quote,
    Claim,
    AnswerSection,
    Gap,
    StruckClaim,
    Answer,
    DeficiencyType,
    Severity,
    ResolutionStatus,
    Deficiency,
    Citation,
    Evidence,
    ReviewDecision,
    AnalystDeficiency,
    StrikeRequest,
    ReviewResponse,
    DecisionRecord,
    ModelCall,
    EvaluationCycleRecord,
    HumanActRecord,
    ApprovalPolicy,
)
"""Types the checkpoint serializer may revive; everything else stays out of state."""

LEGACY_MODULES: dict[str, str] = {
    "core.state": "core.domain.records",
    "core.plan": "core.domain.plan",
    "core.answer": "core.domain.answer",
}
"""Where the checkpointed types lived before core/domain/ (0.13): a saved session names each type by module and
name, so the serializer allows the old names and resolves the old modules to the new ones."""

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
    """The checkpoint serializer, allowed to revive exactly the workbench's own state types, under their module
    paths of today and of before the move to core/domain/ (LEGACY_MODULES)."""
    allowed: list[type | tuple[str, ...]] = list(CHECKPOINT_TYPES)
    for old, new in LEGACY_MODULES.items():
        sys.modules.setdefault(old, importlib.import_module(new))
        allowed += [(old, t.__name__) for t in CHECKPOINT_TYPES if t.__module__ == new]
    return CompressingSerializer(allowed_msgpack_modules=allowed)


class PersistenceError(RuntimeError):
    """The checkpoint backend cannot be used (unreachable, or a damaged file); the message says which and why."""


POSTGRES_CONNECT_TIMEOUT_S = 5
"""How long the first connection to Postgres may take before the backend is reported unreachable."""


HEARTBEAT_WAIT_S = 2.0
"""How long a heartbeat write waits for a pooled Postgres connection before it is skipped (retried next beat)."""


@dataclass
class Persistence:
    """A checkpointer and a store that share one backend, and the backend's cross-process run lock."""

    checkpointer: Any
    store: Any
    backend: str
    _closers: tuple[Any, ...] = ()
    run_lock: RunLock = in_process_only
    pooled_store: Callable[[], AbstractContextManager[Any]] | None = None
    """A store on a connection of its own, waiting only briefly for one (Postgres)."""

    def heartbeat_store(self) -> AbstractContextManager[Any]:
        """The store that the heartbeat refreshes of running sessions go through, entered per write: on Postgres a
        pooled connection waited for at most HEARTBEAT_WAIT_S (a run's lock connection carries its checkpoint
        writes and is left alone), so a busy pool delays a refresh, never a run; else the store itself."""
        return self.pooled_store() if self.pooled_store is not None else nullcontext(self.store)

    def close(self) -> None:
        """Release connections."""
        for close in self._closers:
            close()


def open_persistence(settings: Settings) -> Persistence:
    """One Persistence per backend location per process (SQLite file or Postgres URL)."""
    key = settings.database_url or str(settings.checkpoint_path.resolve())
    with _lock:
        if key not in _open:
            _open[key] = (
                _postgres(settings.database_url, pool_size=settings.db_pool_size)
                if settings.database_url
                else _sqlite(settings)
            )
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
    for c in (
        conn,
        store_conn := sqlite3.connect(
            str(settings.checkpoint_path), check_same_thread=False, timeout=30, isolation_level=None
        ),
    ):
        c.execute("PRAGMA journal_mode=WAL")
        # WAL with synchronous=NORMAL: every commit survives a killed process (it is in the OS cache); only a
        # power loss or OS crash can drop the last commits. FULL would fsync every checkpoint of every step.
        c.execute("PRAGMA synchronous=NORMAL")
        c.execute("PRAGMA busy_timeout=30000")
    saver = SqliteSaver(conn, serde=serializer())
    saver.setup()
    store = SqliteStore(store_conn)
    store.setup()
    return Persistence(
        checkpointer=saver,
        store=store,
        backend="sqlite",
        _closers=(conn.close, store_conn.close),
        run_lock=file_lock(settings.data_dir / "locks"),
    )


@contextmanager
def _creation_lock(data_dir: Path) -> Iterator[None]:
    """Serialise opening the SQLite file among processes, so none sees another's brand-new file while it is
    still empty (a zero-length file must mean a truncated database, not a racing first start)."""
    with FileLock(data_dir / ".checkpoints-open.lock"):
        yield


def _refuse_empty_file(path: Path) -> None:
    """SQLite would take a zero-length file for a new database, and every session would vanish without a word."""
    if path.exists() and path.stat().st_size == 0:
        raise PersistenceError(
            f"the checkpoint database {path} is empty (0 bytes): it was truncated, so its sessions are not there. "
            "Restore it from a backup, or delete the file to start with no sessions."
        )


def run_slots(pool_size: int) -> int:
    """How many sessions one process runs at once on a pool of `pool_size` connections: each run holds one (its
    lock and its checkpoint writes), and a quarter stays free for reads, the session list and the store."""
    return max(1, pool_size * 3 // 4)


def _postgres(url: str, pool_size: int = 20, wait_s: float = 10.0) -> Persistence:
    """Checkpoints, store and run locks on one pool of at most `pool_size` connections (no connection outside
    it); a run waits at most `wait_s` for its lock connection, then is refused with RunLockUnavailable."""
    import psycopg
    from langgraph.store.postgres import PostgresStore
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from core.persistence.leased_saver import LeasedPostgresSaver

    try:  # one probe first: the pool would retry in the background and time out after 30 s with a traceback
        psycopg.connect(url, connect_timeout=POSTGRES_CONNECT_TIMEOUT_S).close()
    except psycopg.Error as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise PersistenceError(f"cannot reach the database at WORKBENCH_DATABASE_URL: {reason}") from None
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=pool_size,
        kwargs={"autocommit": True, "row_factory": dict_row, "prepare_threshold": 0},
        configure=_keepalives,
        reset=unlock_all,
        open=True,
    )
    saver = LeasedPostgresSaver(pool, serde=serializer())
    store = PostgresStore(pool)
    with pool.connection() as conn:  # replicas starting together on a fresh database would race the migrations
        _wait_for_advisory_lock(conn, "workbench-schema-setup")
        try:
            saver.setup()
            store.setup()
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended('workbench-schema-setup', 0))")
    return Persistence(
        checkpointer=saver,
        store=store,
        backend="postgres",
        _closers=(pool.close,),
        run_lock=advisory_lock(pool, saver, run_slots(pool_size), wait_s),
        pooled_store=_pooled_store(pool, HEARTBEAT_WAIT_S),
    )


def _pooled_store(pool: Any, wait_s: float) -> Callable[[], AbstractContextManager[Any]]:
    """A PostgresStore on a connection taken from the pool for one use, waiting at most `wait_s` for it."""
    from langgraph.store.postgres import PostgresStore

    @contextmanager
    def store() -> Iterator[Any]:
        with pool.connection(timeout=wait_s) as conn:
            yield PostgresStore(conn)

    return store


def _keepalives(conn: Any) -> None:
    """Server-side TCP keepalives on every pooled connection, so the server notices a vanished host within about
    a minute and drops its run locks."""
    for setting in ("tcp_keepalives_idle = 30", "tcp_keepalives_interval = 10", "tcp_keepalives_count = 3"):
        conn.execute(f"SET {setting}")


def _wait_for_advisory_lock(conn: Any, name: str, timeout_s: float = 300.0) -> None:
    """Take a session-level advisory lock by polling: a blocking pg_advisory_lock would keep a statement (and its
    snapshot) open, which the migrations' CREATE INDEX CONCURRENTLY in the lock holder waits for: a deadlock
    that Postgres cannot see."""
    deadline = time.monotonic() + timeout_s
    while not conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0)) AS got", (name,)).fetchone()["got"]:
        if time.monotonic() > deadline:
            raise TimeoutError(f"another process has been setting up the database schema for {timeout_s:.0f} s")
        time.sleep(0.1)


def close_all() -> None:
    """Close every open backend (registered at exit)."""
    with _lock:
        for p in _open.values():
            p.close()
        _open.clear()


atexit.register(close_all)
