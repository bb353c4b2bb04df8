"""Running sessions: start, answer a review, continue a cut-off run, branch from a past cycle."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import date
from typing import Any

from langgraph.types import Command

from core.clock import utc_now
from core.inputs import InputError, parse_review, validate_as_of, validate_max_cycles, validate_policy, validate_question
from core.persistence import RunLease
from core.results import AWAITING_REVIEW, EMPTY, INTERRUPTED, RUNNING, ProgressEvent, RunResult, entry_status, progress_event
from core.service.base import RunLockLostError, WorkbenchBase

OnEvent = Callable[[ProgressEvent], None] | None


class Runs(WorkbenchBase):
    """The run half of the Workbench."""

    def start(self, question: str, *, as_of: date | str | None = None, max_cycles: int | None = None,
              approve: str | None = "manual", collection: str | None = None, user_id: str = "local",
              on_event: OnEvent = None) -> RunResult:
        """Start a new session and run it until it pauses for review or finishes."""
        q = validate_question(question, self.settings)
        day = validate_as_of(as_of)
        cycles = validate_max_cycles(self.settings.max_cycles if max_cycles is None else max_cycles)
        policy = validate_policy(approve)
        store = self.store(collection)
        if store.count() == 0:
            raise InputError("the corpus is empty: ingest documents first (python -m core ingest PATH or the Corpus page)")
        thread_id = uuid.uuid4().hex[:12]
        now = utc_now()
        meta = {
            "question": q, "status": RUNNING, "created_at": now, "updated_at": now, "user_id": user_id,
            "engine": self.engine_name, "collection": collection or self.settings.collection,
            "as_of": day.isoformat(), "elapsed_s": 0.0, "approval_policy": str(policy), "max_evaluation_cycles": cycles,
        }
        # the run lock first: a backend that refuses it (busy, out of connections) leaves no session behind
        with self._exclusive(thread_id) as lease:
            self._save_session(thread_id, meta, lease.store)
            return self._run_locked(thread_id, initial_state(thread_id, meta), on_event, lease)

    def resume(self, thread_id: str, decisions: Any, *, on_event: OnEvent = None,
               user_id: str | None = None) -> RunResult:
        """Answer the pending review (approve / edit / reject per correction, added deficiencies, stop).

        The decisions must name the review they answer (`cycle`), and are checked under the session's lock: a
        second (stale) submission of the same decisions is refused as busy, as answered, or as meant for an
        earlier review, never applied to a later one.
        """
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id) as lease:
            current = self._stored(thread_id, meta)
            if current.status != AWAITING_REVIEW or not current.pending_review:
                hint = "; continue the cut-off run instead (continue_run)" if current.status == INTERRUPTED else ""
                raise InputError(f"session {thread_id} is not waiting for a review (status: {current.status}){hint}")
            response = parse_review(decisions, self.settings, current)
            return self._run_locked(thread_id, Command(resume=response.model_dump(mode="json")), on_event, lease)

    def continue_run(self, thread_id: str, *, on_event: OnEvent = None, user_id: str | None = None) -> RunResult:
        """Carry on a run that was cut off (process stopped mid-run) from its last checkpoint.

        LangGraph re-runs only the step that had not been saved: tasks whose writes reached the checkpointer
        (e.g. one of several parallel corrections) are not repeated, and an answered review is not asked again.
        A session cut off before its first checkpoint starts again from the inputs kept in its list entry.
        """
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id) as lease:
            current = self._stored(thread_id, meta)
            if current.status != INTERRUPTED:
                raise InputError(f"session {thread_id} was not cut off mid-run (status: {current.status})")
            payload = None if self._has_checkpoint(thread_id) else initial_state(thread_id, meta)
            return self._run_locked(thread_id, payload, on_event, lease)

    def branch(self, thread_id: str, cycle: int, *, user_id: str | None = None) -> str:
        """Fork a new session from the checkpoint right after cycle `cycle`'s critique; the user given (who must
        own the source session) owns the branch."""
        meta = self._owned(thread_id, user_id)
        graph = self.graph(meta.get("collection"))
        config = {"configurable": {"thread_id": thread_id}}
        target = None
        for snap in graph.get_state_history(config):
            history = snap.values.get("evaluation_history", [])
            if snap.next and len(history) == cycle + 1 and history[-1].cycle_number == cycle and "review" in snap.next or (
                    snap.next and len(history) == cycle + 1 and "finalize" in snap.next):
                target = snap
                break
        if target is None:
            raise InputError(f"session {thread_id} has no checkpoint after cycle {cycle}")
        new_id = uuid.uuid4().hex[:12]
        graph.update_state({"configurable": {"thread_id": new_id}}, target.values, as_node="critique")
        now = utc_now()
        self._save_session(new_id, {**meta, "status": INTERRUPTED, "created_at": now, "updated_at": now,
                                    "parent_thread_id": thread_id, "branched_from_cycle": cycle,
                                    "user_id": user_id or meta.get("user_id", "local"), "edits": []})
        with self._exclusive(new_id) as lease:
            return self._run_locked(new_id, None, None, lease).thread_id

    def _run_locked(self, thread_id: str, payload: Any, on_event: OnEvent, lease: RunLease) -> RunResult:
        """Stream the graph from `payload` until it pauses or ends; the caller holds the session's lock (`lease`).

        A run whose lock is lost mid-run fails at its next checkpoint write (see core.leased_saver) and raises
        RunLockLostError without touching the session entry, which the new lock holder owns."""
        store = lease.store  # with Postgres, the run's whole database traffic uses its lock connection
        meta = self._session(thread_id, store)
        self.store(meta.get("collection"))  # a store held by another process fails here, before the session changes
        graph = self.graph(meta.get("collection"))
        config = {"configurable": {"thread_id": thread_id}, "recursion_limit": 200}
        started = time.perf_counter()
        self._save_session(thread_id, {**meta, "status": RUNNING, "updated_at": utc_now()}, store)
        elapsed = meta.get("elapsed_s", 0.0)
        try:
            for chunk in graph.stream(payload, config, stream_mode="updates", durability="sync"):
                if on_event is None:
                    continue
                for node, update in chunk.items():
                    if not node.startswith("__"):
                        on_event(progress_event(node, update))
        except Exception as exc:
            if lease.lost():
                raise RunLockLostError(
                    f"session {thread_id} lost its run lock (its database connection dropped): the run stopped "
                    "before its next write; continue it once no other process runs it") from exc
            raise
        finally:
            result = self._result(thread_id, graph)
            if not lease.lost():  # else the session entry belongs to whoever holds the lock now
                stored = self._session(thread_id, store)
                if result.status == EMPTY:
                    result.status = entry_status(stored, has_checkpoint=False)
                elapsed = round(stored.get("elapsed_s", 0.0) + time.perf_counter() - started, 4)
                self._save_session(thread_id, {
                    **stored, "status": result.status, "updated_at": utc_now(), "quality_score": result.quality_score,
                    "termination_reason": result.termination_reason, "elapsed_s": elapsed}, store)
        result.metrics["elapsed_s"] = elapsed
        return result


def initial_state(thread_id: str, meta: dict[str, Any]) -> dict[str, Any]:
    """The graph's input for a new session, from the inputs its list entry keeps (so a run cut off before its
    first checkpoint can start again)."""
    q = meta["question"]
    return {
        "original_query": q, "as_of": date.fromisoformat(meta["as_of"]), "session_id": thread_id,
        "user_id": meta.get("user_id", "local"), "approval_policy": meta["approval_policy"],
        "engine": meta.get("engine", "offline"), "max_evaluation_cycles": meta["max_evaluation_cycles"],
        "evaluation_cycle": 0, "identified_deficiencies": [], "evaluation_history": [],
        "consecutive_score_improvement_streak": 0, "plateau_streak": 0, "last_evaluation_score": None,
        "evaluation_termination_reason": None, "messages": [{"role": "user", "content": q}],
    }
