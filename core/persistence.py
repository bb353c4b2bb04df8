"""Checkpointer and key-value store factory: SQLite under the data dir by default, Postgres when configured."""

from __future__ import annotations

import atexit
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from core.config import Settings
from core.state import CHECKPOINT_TYPES

_lock = threading.Lock()
_open: dict[str, "Persistence"] = {}


def serializer() -> JsonPlusSerializer:
    """The checkpoint serializer, allowed to revive exactly the workbench's own state types."""
    return JsonPlusSerializer(allowed_msgpack_modules=list(CHECKPOINT_TYPES))


@dataclass
class Persistence:
    """A checkpointer and a store that share one backend."""

    checkpointer: Any
    store: Any
    backend: str
    _closers: tuple[Any, ...] = ()

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
    conn = sqlite3.connect(str(settings.checkpoint_path), check_same_thread=False, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=30000")
    saver = SqliteSaver(conn, serde=serializer())
    saver.setup()
    store_conn = sqlite3.connect(str(settings.checkpoint_path), check_same_thread=False, timeout=30,
                                 isolation_level=None)
    store = SqliteStore(store_conn)
    store.setup()
    return Persistence(checkpointer=saver, store=store, backend="sqlite", _closers=(conn.close, store_conn.close))


def _postgres(url: str) -> Persistence:
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    pool = ConnectionPool(url, min_size=1, max_size=20, kwargs={"autocommit": True, "row_factory": dict_row,
                                                                "prepare_threshold": 0}, open=True)
    saver = PostgresSaver(pool, serde=serializer())
    saver.setup()
    store = PostgresStore(pool)
    store.setup()
    return Persistence(checkpointer=saver, store=store, backend="postgres", _closers=(pool.close,))


def close_all() -> None:
    """Close every open backend (registered at exit)."""
    with _lock:
        for p in _open.values():
            p.close()
        _open.clear()


atexit.register(close_all)
