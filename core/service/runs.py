"""Running sessions: start, answer a review, continue a cut-off run, branch from a past cycle."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import Any

from langgraph.errors import GraphRecursionError
from langgraph.types import Command

from core.domain.audit import SettingsSnapshot
from core.domain.clock import utc_now
from core.domain.deficiencies import open_ones
from core.domain.inputs import (
    InputError,
    parse_review,
    validate_as_of,
    validate_max_cycles,
    validate_policy,
    validate_question,
)
from core.domain.limits import MAX_CYCLES
from core.domain.outcome import SessionStatus
from core.domain.results import (
    ProgressEvent,
    RunResult,
    entry_status,
    progress_event,
    with_entry_figures,
)
from core.domain.stop_reasons import STEP_LIMIT
from core.loop.deps import Deps
from core.loop.graph import step_budget
from core.loop.state import SessionInput, WorkbenchState
from core.loop.termination import TerminationPolicy
from core.persistence.run_locks import RunLease
from core.service.base import RunLockLostError, WorkbenchBase
from core.service.staging import STAGED_NS

log = logging.getLogger(__name__)
MANUAL = "manual"
"""The approval policy of a branch: its reopened review is decided by a person."""

OnEvent = Callable[[ProgressEvent], None] | None


class Runs(WorkbenchBase):
    """The run half of the Workbench."""

    def start(
        self,
        question: str,
        *,
        as_of: date | str | None = None,
        max_cycles: int | None = None,
        approve: str | None = "manual",
        collection: str | None = None,
        user_id: str = "local",
        actor: str | None = None,
        on_event: OnEvent = None,
    ) -> RunResult:
        """Start a new session and run it until it pauses for review or finishes. Its list entry keeps the inputs,
        who asked (`actor`, the reviewer's name; `user_id` when none is given) and a snapshot of the termination
        and engine settings it starts with."""
        q = validate_question(question, self.settings.max_query_chars)
        day = validate_as_of(as_of)
        cycles = validate_max_cycles(self.settings.max_cycles if max_cycles is None else max_cycles)
        policy = validate_policy(approve)
        store = self.store(collection)
        if store.count() == 0:
            name = collection or self.settings.collection
            state = "is empty" if store.exists() else "does not exist"
            raise InputError(
                f"the corpus is empty: collection '{name}' {state}; ingest documents first "
                "(python -m core ingest PATH or the Corpus page)"
            )
        thread_id = uuid.uuid4().hex[:12]
        now = utc_now()
        meta = {
            "question": q,
            "status": SessionStatus.running.value,
            "created_at": now,
            "updated_at": now,
            "user_id": user_id,
            "started_by": actor or user_id,
            "engine": self.engine_name,
            "collection": collection or self.settings.collection,
            "as_of": day.isoformat(),
            "elapsed_s": 0.0,
            "approval_policy": str(policy),
            "max_evaluation_cycles": cycles,
            "settings": self.settings.snapshot(self.engine_name, cycles).model_dump(mode="json"),
        }
        # the run lock first: a backend that refuses it (busy, out of connections) leaves no session behind
        with self._exclusive(thread_id) as lease:
            self._save_session(thread_id, meta, lease.store)
            return self._run_locked(thread_id, session_input(thread_id, meta), on_event, lease)

    def resume(
        self, thread_id: str, decisions: Any, *, on_event: OnEvent = None, user_id: str | None = None
    ) -> RunResult:
        """Answer the pending review (approve / edit / reject per correction, added deficiencies, stop).

        The decisions must name the review they answer (`cycle`), and are checked under the session's lock: a
        second (stale) submission of the same decisions is refused as busy, as answered, or as meant for an
        earlier review, never applied to a later one.
        """
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id) as lease:
            current = self._stored(thread_id, meta)
            if current.status != SessionStatus.awaiting_review or not current.pending_review:
                cut_off = current.status == SessionStatus.interrupted
                hint = "; continue the cut-off run instead (continue_run)" if cut_off else ""
                raise InputError(f"session {thread_id} is not waiting for a review (status: {current.status}){hint}")
            response = parse_review(decisions, self.settings.max_query_chars, current)
            result = self._run_locked(thread_id, Command(resume=response.model_dump(mode="json")), on_event, lease)
            (lease.store or self.persistence.store).delete(STAGED_NS, thread_id)  # the board's edits went with it
            return result

    def continue_run(self, thread_id: str, *, on_event: OnEvent = None, user_id: str | None = None) -> RunResult:
        """Carry on a run that was cut off (process stopped mid-run) from its last checkpoint.

        LangGraph re-runs only the step that had not been saved: tasks whose writes reached the checkpointer
        (e.g. one of several parallel corrections) are not repeated, and an answered review is not asked again.
        A session cut off before its first checkpoint starts again from the inputs kept in its list entry.
        """
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id) as lease:
            current = self._stored(thread_id, meta)
            if current.status != SessionStatus.interrupted:
                raise InputError(f"session {thread_id} was not cut off mid-run (status: {current.status})")
            payload = None if self._has_checkpoint(thread_id) else session_input(thread_id, meta)
            return self._run_locked(thread_id, payload, on_event, lease)

    def branch(self, thread_id: str, cycle: int, *, user_id: str | None = None) -> str:
        """Fork a new session that re-opens the review of cycle `cycle`, so the analyst can decide differently: it
        starts from the checkpoint right after that cycle's critique and waits at its review with that cycle's
        proposals, whatever the source's approval policy (the branch's review is manual) and even when the source
        stopped there. The session must allow one more cycle after the reopened review, so its maximum grows to
        `cycle + 1` when smaller. The user given (who must own the source session) owns the branch."""
        meta = self._owned(thread_id, user_id)
        graph = self.graph()
        values = self._after_critique(graph, thread_id, cycle)
        if not open_ones(values.get("identified_deficiencies", [])):
            raise InputError(
                f"cycle {cycle} of session {thread_id} left no open deficiency, so its review has "
                "nothing to decide: branch from an earlier cycle"
            )
        cycles = max(values.get("max_evaluation_cycles", 0), cycle + 1)
        new_id = uuid.uuid4().hex[:12]
        reopened = {
            **{k: v for k, v in values.items() if k in WorkbenchState.__annotations__},
            "evaluation_termination_reason": None,
            "degraded": None,
            "approval_policy": MANUAL,
            "max_evaluation_cycles": cycles,
        }
        graph.update_state({"configurable": {"thread_id": new_id}}, reopened, as_node="critique")
        now = utc_now()
        timings = {k: v for k, v in meta.get("node_seconds", {}).items() if int(k) <= cycle}
        self._save_session(
            new_id,
            {
                **meta,
                "status": SessionStatus.interrupted.value,
                "created_at": now,
                "updated_at": now,
                "parent_thread_id": thread_id,
                "branched_from_cycle": cycle,
                "approval_policy": MANUAL,
                "max_evaluation_cycles": cycles,
                **({"settings": {**meta["settings"], "max_cycles": cycles}} if meta.get("settings") else {}),
                "node_seconds": timings,
                "elapsed_s": 0.0,
                "user_id": user_id or meta.get("user_id", "local"),
                "edits": [],
            },
        )
        with self._exclusive(new_id) as lease:
            return self._run_locked(new_id, None, None, lease).thread_id

    @staticmethod
    def _after_critique(graph: Any, thread_id: str, cycle: int) -> dict[str, Any]:
        """The session's state right after cycle `cycle`'s critique: the oldest checkpoint holding its record."""
        found = None
        for snap in graph.get_state_history({"configurable": {"thread_id": thread_id}}):
            history = snap.values.get("evaluation_history", [])
            if len(history) == cycle + 1 and history[-1].cycle_number == cycle:
                found = snap.values
        if found is None:
            raise InputError(f"session {thread_id} has no checkpoint after cycle {cycle}")
        return found

    def _run_locked(self, thread_id: str, payload: Any, on_event: OnEvent, lease: RunLease) -> RunResult:
        """Stream the graph from `payload` until it pauses or ends; the caller holds the session's lock (`lease`).

        The run gets its collection's store through the graph's runtime context and a step budget from the
        session's maximum cycles; a run that still exhausts it is finalised with `step_limit` and its residuals
        disclosed. Node timings go to the session's list entry, per cycle, never into the checkpoints.
        A run whose lock is lost mid-run fails at its next checkpoint write (see core.persistence.leased_saver) and raises
        RunLockLostError without touching the session entry, which the new lock holder owns."""
        store = lease.store  # with Postgres, the run's whole database traffic uses its lock connection
        meta = self._session(thread_id, store)
        deps = session_deps(self.deps(meta.get("collection")), meta)  # a store held elsewhere fails here, unchanged
        graph = self.graph()
        config = {
            "configurable": {"thread_id": thread_id},
            "recursion_limit": step_budget(graph, meta.get("max_evaluation_cycles", MAX_CYCLES)),
        }
        started = time.perf_counter()
        self._save_session(thread_id, {**meta, "status": SessionStatus.running.value, "updated_at": utc_now()}, store)
        elapsed = meta.get("elapsed_s", 0.0)
        clock = NodeClock()
        try:
            try:
                _stream(graph, payload, config, deps, on_event, clock)
            except GraphRecursionError:
                log.warning("session %s used its step budget without stopping; finalising it", thread_id)
                graph.update_state(config, {"evaluation_termination_reason": STEP_LIMIT}, as_node="critique")
                _stream(graph, None, config, deps, on_event, clock)
        except Exception as exc:
            if lease.lost():
                raise RunLockLostError(
                    f"session {thread_id} lost its run lock (its database connection dropped): the run stopped "
                    "before its next write; continue it once no other process runs it"
                ) from exc
            raise
        finally:
            result = self._result(thread_id, graph)
            if not lease.lost():  # else the session entry belongs to whoever holds the lock now
                stored = self._session(thread_id, store)
                if result.status == SessionStatus.empty:
                    result.status = entry_status(stored, has_checkpoint=False)
                elapsed = round(stored.get("elapsed_s", 0.0) + time.perf_counter() - started, 4)
                last = result.evaluation_history[-1].cycle_number if result.evaluation_history else 0
                stored = {
                    **stored,
                    "status": SessionStatus(result.status).value,
                    "updated_at": utc_now(),
                    "quality_score": result.quality_score,
                    "termination_reason": result.termination_reason,
                    "elapsed_s": elapsed,
                    "node_seconds": clock.added_to(stored.get("node_seconds", {}), last),
                }
                with_entry_figures(result, stored)
                self._save_session(thread_id, {**stored, "counts": result.counts.model_dump(mode="json")}, store)
        return result


def _stream(graph: Any, payload: Any, config: dict[str, Any], deps: Deps, on_event: OnEvent, clock: NodeClock) -> None:
    """Run the graph until it pauses or ends, timing each node and reporting it to `on_event`."""
    for chunk in graph.stream(payload, config, context=deps, stream_mode="updates", durability="sync"):
        clock.tick(chunk)
        if on_event is None:
            continue
        for node, update in chunk.items():
            if not node.startswith("__"):
                on_event(progress_event(node, update))


class NodeClock:
    """Seconds per node and cycle of one run, taken from the stream: a node's time is the time since the previous
    update chunk (parallel corrections share their step's wall time). A node counts towards the cycle whose
    critique comes next; nodes after the run's last critique (a review before its pause, finalize) count towards
    that critique's cycle."""

    def __init__(self) -> None:
        self._last = time.perf_counter()
        self._waiting: dict[str, float] = {}
        self.cycles: dict[int, dict[str, float]] = {}

    def tick(self, chunk: dict[str, Any]) -> None:
        """Take the time of the node(s) whose update `chunk` is; writes saved by an earlier run are not timed."""
        now = time.perf_counter()
        spent, self._last = now - self._last, now
        if chunk.get("__metadata__", {}).get("cached"):
            return
        for node, update in chunk.items():
            if node.startswith("__"):
                continue
            self._waiting[node] = self._waiting.get(node, 0.0) + spent
            spent = 0.0
            records = update.get("evaluation_history") if isinstance(update, dict) else None
            if node == "critique" and records:
                self._settle(records[-1].cycle_number)

    def _settle(self, cycle: int) -> None:
        into = self.cycles.setdefault(cycle, {})
        for node, seconds in self._waiting.items():
            into[node] = into.get(node, 0.0) + seconds
        self._waiting = {}

    def added_to(self, kept: dict[str, dict[str, float]], last_cycle: int) -> dict[str, dict[str, float]]:
        """The session entry's timings (`{"cycle": {node: seconds}}`, JSON keys) with this run's added; what ran
        after the last critique goes to `last_cycle`."""
        self._settle(last_cycle)
        out = {k: dict(v) for k, v in kept.items()}
        for cycle, nodes in self.cycles.items():
            into = out.setdefault(str(cycle), {})
            for node, seconds in nodes.items():
                into[node] = round(into.get(node, 0.0) + seconds, 4)
        return out


def session_deps(deps: Deps, meta: dict[str, Any]) -> Deps:
    """The run's context under the termination rules the session started with (its settings snapshot), so a
    session resumed after a settings change keeps its own; a session older than the snapshot runs under today's."""
    if not meta.get("settings"):
        return deps
    settings = deps.settings.with_rules_of(SettingsSnapshot.model_validate(meta["settings"]))
    return replace(deps, settings=settings, policy=TerminationPolicy.from_settings(settings))


def session_input(thread_id: str, meta: dict[str, Any]) -> SessionInput:
    """The graph's input for a new session, from the inputs its list entry keeps (so a run cut off before its
    first checkpoint can start again); the graph starts every other field empty."""
    return SessionInput(
        original_query=meta["question"],
        as_of=date.fromisoformat(meta["as_of"]),
        session_id=thread_id,
        user_id=meta.get("user_id", "local"),
        approval_policy=meta["approval_policy"],
        engine=meta.get("engine", "offline"),
        max_evaluation_cycles=meta["max_evaluation_cycles"],
    )
