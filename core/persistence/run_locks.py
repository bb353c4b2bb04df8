"""Run locks: one run per session at a time among the processes sharing a SQLite file (a file lock per session)
and the replicas sharing Postgres (an advisory lock on the run's own connection)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout


class RunLockUnavailable(RuntimeError):
    """The backend cannot give a run its lock now (every run connection busy, or no database connection): the
    message says which; nothing about the session was written."""


@dataclass
class RunLease:
    """A run lock as held (truthy) or refused (falsy) by `run_lock`; `lost()` tells whether a held lock went
    away while held (its Postgres connection dropped), after which the run must not write."""

    acquired: bool
    connection: Any = None
    store: Any = None
    """With Postgres, the session store on the lock's connection (the run then needs no other connection)."""
    turn: AbstractContextManager[Any] = field(default_factory=nullcontext)
    """Taken around every use of the lock's connection: the store, the checkpoints and the liveness probe share
    it, and another thread (a page showing the session) may read through it while the run writes."""

    def __bool__(self) -> bool:
        return self.acquired

    def lost(self) -> bool:
        """True when the lock's connection is closed, broken or no longer answers."""
        conn = self.connection
        if conn is None:
            return False
        if conn.closed or conn.broken:
            return True
        try:
            with self.turn:
                conn.execute("SELECT 1")
        except Exception:
            return True
        return False


RunLock = Callable[[str], AbstractContextManager[RunLease]]
"""run_lock(thread_id) -> context yielding a truthy RunLease when this process may run the session, a falsy one
when another process or replica holds it; released on exit, and by the operating system / server when the holder
dies. Raises RunLockUnavailable when the backend has no capacity for another run."""


@contextmanager
def in_process_only(thread_id: str) -> Iterator[RunLease]:
    """The lock of a backend that only this process uses (in memory): always granted."""
    yield RunLease(True)


def unlock_all(conn: Any) -> None:
    """A connection going back to the pool holds no advisory lock (belt and braces: run_lock unlocks first, since
    the pool resets a returned connection later, in a worker)."""
    conn.execute("SELECT pg_advisory_unlock_all()")


def file_lock(directory: Path) -> RunLock:
    """One run per session among processes sharing a SQLite file (the CLI and the app): a non-blocking file lock
    per session (filelock: an flock the OS drops when the holder dies; another thread or process is refused)."""

    @contextmanager
    def lock(thread_id: str) -> Iterator[RunLease]:
        directory.mkdir(parents=True, exist_ok=True)
        held = FileLock(directory / f"{re.sub(r'[^A-Za-z0-9_-]', '_', thread_id)}.lock")
        try:
            held.acquire(timeout=0)
        except Timeout:
            yield RunLease(False)
            return
        try:
            yield RunLease(True)
        finally:
            held.release()

    return lock


def advisory_lock(pool: Any, saver: Any, slots: int, wait_s: float) -> RunLock:
    """One run per session among replicas sharing Postgres: a session-level advisory lock on a connection taken
    from the pool for the whole run, which also carries the run's checkpoint writes (so losing the connection
    stops the run before its next write, and the server drops the lock when the holder dies). At most `slots`
    runs at once per process; beyond that, or without a connection within `wait_s`, RunLockUnavailable. A run
    needs no other connection: its checkpoints and its session entry use this one too."""
    from psycopg_pool import PoolTimeout

    from core.persistence.leased_saver import LeaseStore

    free = threading.BoundedSemaphore(slots)

    @contextmanager
    def lock(thread_id: str) -> Iterator[RunLease]:
        if not free.acquire(timeout=wait_s):
            raise RunLockUnavailable(
                f"this process already runs {slots} sessions, as many as its database pool "
                "allows (WORKBENCH_DB_POOL_SIZE); try again when one pauses or finishes"
            )
        try:
            try:
                conn = pool.getconn(timeout=wait_s)
            except PoolTimeout as exc:
                raise RunLockUnavailable(
                    f"no database connection for the run within {wait_s:g} s (the database "
                    "refuses more connections or does not answer); try again later"
                ) from exc
            try:
                key = f"workbench-run:{thread_id}"
                if not conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0)) AS got", (key,)).fetchone()[
                    "got"
                ]:
                    yield RunLease(False)
                    return
                store = LeaseStore(conn)
                lease = RunLease(True, conn, store, store.lock)
                try:
                    with saver.leased(thread_id, conn, store.lock):
                        yield lease
                finally:  # here, not in the pool's reset, which runs later in a pool worker
                    if not lease.lost():
                        with store.lock:
                            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))
            finally:
                pool.putconn(conn)  # a broken connection is discarded by the pool
        finally:
            free.release()

    return lock
