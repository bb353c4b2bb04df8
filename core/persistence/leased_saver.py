"""A PostgresSaver whose traffic for a running session goes through that run's lock connection (Postgres only, so
imported only when Postgres is configured)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.store.postgres import PostgresStore


class LeaseStore(PostgresStore):
    """The session store on a run's lock connection. Every command takes the connection's turn (`lock`, which the
    run's checkpoint saver and liveness probe take too): psycopg serialises single commands, but PostgresStore
    locks only its pipelined batches, so a read from one thread could land inside another's pipelined write on
    the shared connection ("another command is already in progress")."""

    def __init__(self, conn: Any) -> None:
        super().__init__(conn)
        self.lock = threading.RLock()  # type: ignore[assignment]

    @contextmanager
    def _cursor(self, *, pipeline: bool = False) -> Iterator[Any]:
        with self.lock, super()._cursor(pipeline=pipeline) as cur:
            yield cur


class LeasedPostgresSaver(PostgresSaver):
    """Checkpoints on the pool, except the writes of a session this process runs: those go through the connection
    that holds the session's advisory lock. When that connection drops, the lock goes with it and the very next
    write fails, so a run that lost its lock never writes beside the process that took the lock over. Reads of a
    running session use that connection too while it works (one connection per run), the pool otherwise, so a
    stopped run can still be shown."""

    def __init__(self, pool: Any, serde: Any) -> None:
        super().__init__(pool, serde=serde)
        self._leases: dict[str, PostgresSaver] = {}

    @contextmanager
    def leased(self, thread_id: str, conn: Any, turn: Any) -> Iterator[None]:
        """Route the thread's checkpoint traffic through `conn` while the context lasts, taking `turn` (the lock
        that every other user of `conn` takes, see LeaseStore) around each use."""
        lease = PostgresSaver(conn, serde=self.serde)
        lease.lock = turn
        self._leases[thread_id] = lease
        try:
            yield
        finally:
            self._leases.pop(thread_id, None)

    def _writer(self, thread_id: Any) -> Any:
        """The run's leased saver, else this saver itself (through `super()`, over the pool)."""
        lease = self._leases.get(str(thread_id))
        return lease if lease is not None else super()

    def _reader(self, thread_id: Any) -> Any:
        """The lock's connection while it works (a run needs no second connection), else the pool."""
        lease = self._leases.get(str(thread_id))
        conn: Any = lease.conn if lease is not None else None
        if lease is None or conn.closed or conn.broken:
            return super()
        return lease

    def get_tuple(self, config: Any) -> Any:
        return self._reader(config["configurable"]["thread_id"]).get_tuple(config)

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        return self._writer(config["configurable"]["thread_id"]).put(config, checkpoint, metadata, new_versions)

    def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        self._writer(config["configurable"]["thread_id"]).put_writes(config, writes, task_id, task_path)

    def delete_thread(self, thread_id: str) -> None:
        self._writer(thread_id).delete_thread(thread_id)
