"""Heartbeats of running sessions: while a process holds a session's run lock, a daemon thread stamps the time in
the persistence store every few seconds, so that every process and replica tells a run that is going from one that
was cut off by reading one namespace, without probing run locks (a connection per session on Postgres, and a probe
that can make a legitimate start fail)."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from pydantic import BaseModel

from core.persistence.checkpoints import Persistence

log = logging.getLogger(__name__)

HEARTBEATS_NS = ("heartbeats",)
"""Namespace of the heartbeats in the persistence store, keyed by thread id."""

HEARTBEAT_INTERVAL_S = 5.0
"""How often a running session's heartbeat is refreshed."""

HEARTBEAT_TIMEOUT_S = 4 * HEARTBEAT_INTERVAL_S
"""A heartbeat older than this belongs to a run that was cut off (its process died, or lost the database). Four
intervals, so that a slow write or a busy database does not make a live run look dead; the clocks of the replicas
must agree to well within it."""

_HOST = socket.gethostname()
"""This host, as heartbeats name it; replicas need distinct host names (containers and machines have them by
default), since a process of "this host" that no longer exists is taken for dead."""


class Heartbeat(BaseModel):
    """The last sign of life of a run: when, and which process on which host."""

    at: float
    host: str
    pid: int

    def alive(self, now: float) -> bool:
        """Fresh, and not from a process of this host that has died (a killed run is seen at once here)."""
        if now - self.at > HEARTBEAT_TIMEOUT_S:
            return False
        return self.host != _HOST or _pid_alive(self.pid)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        pass
    return True


@contextmanager
def beating(persistence: Persistence, thread_id: str, own_store: Any = None) -> Iterator[None]:
    """Keep the session's heartbeat fresh while the block runs (the caller holds the run lock); removed after.

    `own_store` is the store on the run's own lock connection (Postgres). The calling thread writes the first beat
    and removes the last through it, so a busy pool delays neither the run's start nor its end (a run whose lock
    connection dropped removes it through the pool); the refreshes in between come from a worker thread on pooled
    connections (the lock connection carries the run's writes)."""

    def this_thread() -> AbstractContextManager[Any]:
        return nullcontext(own_store) if own_store is not None else persistence.heartbeat_store()

    stop = threading.Event()
    _write(this_thread, thread_id)
    worker = threading.Thread(
        target=_refresh, args=(persistence, thread_id, stop), daemon=True, name=f"heartbeat-{thread_id}"
    )
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join(HEARTBEAT_TIMEOUT_S)
        _remove(thread_id, *((this_thread, persistence.heartbeat_store) if own_store is not None else (this_thread,)))


def _refresh(persistence: Persistence, thread_id: str, stop: threading.Event) -> None:
    while not stop.wait(HEARTBEAT_INTERVAL_S):
        _write(persistence.heartbeat_store, thread_id)


def _remove(thread_id: str, *stores: Callable[[], AbstractContextManager[Any]]) -> None:
    """Delete the session's heartbeat through the first of `stores` that works; a failure of all is logged (the
    beat then goes stale within HEARTBEAT_TIMEOUT_S)."""
    for n, store_of in enumerate(stores, 1):
        try:
            with store_of() as store:
                store.delete(HEARTBEATS_NS, thread_id)
            return
        except Exception:
            if n == len(stores):
                log.warning("heartbeat of session %s not removed", thread_id, exc_info=True)


def _write(store_of: Callable[[], AbstractContextManager[Any]], thread_id: str) -> None:
    """One heartbeat; a failure is logged and the next interval tries again (the run lock, not the heartbeat,
    keeps a second process from running the session)."""
    beat = Heartbeat(at=time.time(), host=_HOST, pid=os.getpid())
    try:
        with store_of() as store:
            store.put(HEARTBEATS_NS, thread_id, beat.model_dump(), index=False)
    except Exception:
        log.warning("heartbeat of session %s not written", thread_id, exc_info=True)


def beats_alive(persistence: Persistence, thread_id: str) -> bool:
    """Whether a process or replica runs this session now, by its heartbeat."""
    item = persistence.store.get(HEARTBEATS_NS, thread_id)
    return item is not None and Heartbeat.model_validate(item.value).alive(time.time())


def alive_sessions(persistence: Persistence) -> set[str]:
    """The sessions some process or replica runs now, by their heartbeats (one read for all of them)."""
    now = time.time()
    return {
        item.key
        for item in persistence.store.search(HEARTBEATS_NS, limit=100_000)
        if Heartbeat.model_validate(item.value).alive(now)
    }
