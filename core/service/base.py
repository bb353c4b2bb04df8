"""The service's wiring (settings, persistence, stores, the compiled graph), its session entries and its run lock:
what the runs, sessions and corpus parts of the Workbench share."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from core.config import Settings, get_settings
from core.domain.inputs import InputError
from core.domain.outcome import SessionStatus
from core.domain.results import RunResult, entry_status, snapshot_result, with_entry_figures
from core.engines.factory import make_engines
from core.loop.deps import Deps
from core.loop.graph import build_graph
from core.loop.termination import TerminationPolicy
from core.persistence.checkpoints import Persistence, open_persistence
from core.persistence.heartbeat import beating
from core.persistence.run_locks import RunLease, RunLockUnavailable

SESSIONS_NS = ("sessions",)
"""Namespace of the session list entries in the persistence store."""


class SessionBusyError(RuntimeError):
    """A run is already executing on this session."""


class RunLockLostError(SessionBusyError):
    """The run lost its cross-process lock mid-run (its database connection dropped) and stopped before writing
    again; the session is cut off and can be continued once no other process runs it."""


class SessionNotFoundError(KeyError):
    """No session with that thread id (or not one this user may open)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "session not found"


_held: set[str] = set()
"""The sessions that a run or an edit holds in this process (an entry lives only while held)."""
_held_guard = threading.Lock()


@contextmanager
def thread_lock(thread_id: str) -> Iterator[None]:
    """One run at a time per session thread, within this process."""
    with _held_guard:
        if thread_id in _held:
            raise SessionBusyError(f"session {thread_id} is already running; wait for it to pause or finish")
        _held.add(thread_id)
    try:
        yield
    finally:
        with _held_guard:
            _held.discard(thread_id)


class WorkbenchBase:
    """Settings, engines, persistence, stores and the compiled graph, opened on first use and shared per process."""

    def __init__(self, settings: Settings | None = None, *, store: Any = None, persistence: Persistence | None = None):
        self.settings = settings or get_settings()
        self._store = store
        self._persistence = persistence
        self._graph: Any = None
        self._stores: dict[str, Any] = {}
        self.planner, self.drafter, self.critic, self.engine_name = make_engines(self.settings)

    @property
    def persistence(self) -> Persistence:
        """Checkpointer and store (opened on first use)."""
        if self._persistence is None:
            self._persistence = open_persistence(self.settings)
        return self._persistence

    def store(self, collection: str | None = None) -> Any:
        """The vector store of a collection (opened on first use, shared per process); InputError for a collection
        name that is not an identifier, StoreLockedError while another process holds the embedded store."""
        name = self._collection(collection)
        if self._store is not None and name == self.settings.collection:
            return self._store
        if name not in self._stores:
            from core.retrieval.registry import open_store

            self._stores[name] = open_store(self.settings, name)
        return self._stores[name]

    def _collection(self, collection: str | None) -> str:
        """The collection's name (default: the configured one), checked as an identifier."""
        from core.retrieval.names import validate_collection

        try:
            return validate_collection(self.settings.collection if collection is None else collection)
        except ValueError as exc:
            raise InputError(str(exc)) from None

    def graph(self) -> Any:
        """The compiled loop, one per Workbench. Runs get their collection's store through the runtime context
        (`deps`), so reading a session (show, export, sessions) never opens the corpus and works while another
        process holds the embedded store."""
        if self._graph is None:
            self._graph = build_graph(checkpointer=self.persistence.checkpointer)
        return self._graph

    def deps(self, collection: str | None = None) -> Deps:
        """What a run's nodes need (the graph's runtime context), over the store of `collection`."""
        return Deps(
            store=self.store(collection),
            planner=self.planner,
            drafter=self.drafter,
            critic=self.critic,
            settings=self.settings,
            policy=TerminationPolicy.from_settings(self.settings),
            engine_name=self.engine_name,
        )

    # ------------------------------------------------------------------------------------------ session entries
    def _session(self, thread_id: str, store: Any = None) -> dict[str, Any]:
        """The session's list entry (through `store` when given: a running session's own connection)."""
        item = (store or self.persistence.store).get(SESSIONS_NS, thread_id)
        if item is None:
            raise SessionNotFoundError(f"no session {thread_id}")
        return dict(item.value)

    def _owned(self, thread_id: str, user_id: str | None) -> dict[str, Any]:
        """The session's list entry; with a user, another user's session is reported exactly like a missing one."""
        meta = self._session(thread_id)
        if user_id is not None and meta.get("user_id", "local") != user_id:
            raise SessionNotFoundError(f"no session {thread_id}")
        return meta

    def _save_session(self, thread_id: str, value: dict[str, Any], store: Any = None) -> None:
        (store or self.persistence.store).put(SESSIONS_NS, thread_id, value, index=False)

    def _has_checkpoint(self, thread_id: str) -> bool:
        return self.persistence.checkpointer.get_tuple({"configurable": {"thread_id": thread_id}}) is not None

    def _result(self, thread_id: str, graph: Any) -> RunResult:
        return snapshot_result(thread_id, graph.get_state({"configurable": {"thread_id": thread_id}}), self.engine_name)

    def _stored(self, thread_id: str, meta: dict[str, Any]) -> RunResult:
        """The session as its last checkpoint has it (callers holding the lock see `interrupted`, not `running`)."""
        result = self._result(thread_id, self.graph())
        if result.status == SessionStatus.empty:
            result.status = entry_status(meta, has_checkpoint=False)
        return with_entry_figures(result, meta)

    # ---------------------------------------------------------------------------------------------- run lock
    def is_running(self, thread_id: str) -> bool:
        """Whether a run is executing on this session in this process (the board is read-only meanwhile)."""
        return thread_id in _held

    @contextmanager
    def _exclusive(self, thread_id: str) -> Iterator[RunLease]:
        """One run or edit at a time per session: in this process (thread_lock), then among the processes and
        replicas sharing the backend (the persistence's run lock, whose lease the run checks). While it is held,
        the session's heartbeat tells the other processes and replicas that it runs."""
        with thread_lock(thread_id), ExitStack() as held:
            try:
                lease = held.enter_context(self.persistence.run_lock(thread_id))
            except RunLockUnavailable as exc:
                raise SessionBusyError(f"session {thread_id} cannot run now: {exc}") from exc
            if not lease:
                raise SessionBusyError(
                    f"session {thread_id} is already running in another process or replica; "
                    "wait for it to pause or finish"
                )
            held.enter_context(beating(self.persistence, thread_id, own_store=lease.store))
            yield lease
