"""The one API that the pages and the CLI use: start, resume, show, sessions, annotate, branch, export."""

from __future__ import annotations

import logging
import re
import threading
import time
import unicodedata
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Callable, Iterator

from langgraph.types import Command
from pydantic import BaseModel, ConfigDict, Field

from core.answer import Answer
from core.config import Settings, get_settings
from core.deficiencies import residual
from core.engines.factory import make_engines
from core.graph import build_graph
from core.nodes import Deps, final_text
from core.persistence import Persistence, open_persistence
from core.plan import ResearchPlan
from core.state import (
    ApprovalPolicy,
    Citation,
    Deficiency,
    EvaluationCycleRecord,
    ResolutionStatus,
    ReviewResponse,
    Severity,
    deficiency_id,
    verify_chain,
)
from core.termination import TerminationPolicy, describe

log = logging.getLogger(__name__)
SESSIONS_NS = ("sessions",)
MIN_AS_OF = date(1990, 1, 1)
MAX_AS_OF_YEARS_AHEAD = 30
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_NOTE_CHARS = 4000
"""Longest analyst note, reason or added-row description accepted (they are stored in every later checkpoint)."""


class InputError(ValueError):
    """Bad input from a person: the message names the problem and what to do."""


class SessionBusyError(RuntimeError):
    """A run is already executing on this session."""


class SessionNotFoundError(KeyError):
    """No session with that thread id (or not one this user may open)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "session not found"


class RunResult(BaseModel):
    """Where a session stands: finished, or paused with a review pending."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    thread_id: str
    status: str
    question: str
    as_of: date | None = None
    engine: str = "offline"
    approval_policy: str = "manual"
    plan: ResearchPlan | None = None
    answer: Answer | None = None
    current_answer: str = ""
    final_answer: str = ""
    quality_score: float | None = None
    termination_reason: str | None = None
    termination_text: str = ""
    residual_deficiencies: list[Deficiency] = Field(default_factory=list)
    identified_deficiencies: list[Deficiency] = Field(default_factory=list)
    evaluation_history: list[EvaluationCycleRecord] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    pending_review: dict[str, Any] | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)
    max_evaluation_cycles: int = 0
    evaluation_cycle: int = 0

    def to_json(self) -> dict[str, Any]:
        """The `run --json` object of DESIGN.md §7."""
        return self.model_dump(mode="json")


class SessionSummary(BaseModel):
    """One row of the session list."""

    thread_id: str
    question: str
    status: str
    quality_score: float | None = None
    termination_reason: str | None = None
    created_at: str
    updated_at: str
    user_id: str = "local"
    engine: str = "offline"
    parent_thread_id: str | None = None
    branched_from_cycle: int | None = None


@dataclass
class ProgressEvent:
    """A node finished: shown live by the UI and the CLI."""

    node: str
    cycle: int
    detail: str


_thread_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


@contextmanager
def thread_lock(thread_id: str) -> Iterator[None]:
    """One run at a time per session thread, within this process."""
    with _locks_guard:
        lock = _thread_locks.setdefault(thread_id, threading.Lock())
    if not lock.acquire(blocking=False):
        raise SessionBusyError(f"session {thread_id} is already running; wait for it to pause or finish")
    try:
        yield
    finally:
        lock.release()


def validate_question(question: str, settings: Settings) -> str:
    """A clean question or an InputError naming what is wrong (one of only invisible characters is empty)."""
    if not isinstance(question, str):
        raise InputError("the question must be text")
    cleaned = _CONTROL_RE.sub(" ", question).strip()
    if not "".join(ch for ch in cleaned if unicodedata.category(ch) != "Cf").strip():
        raise InputError("the question is empty: type a regulatory question")
    if len(cleaned) > settings.max_query_chars:
        raise InputError(f"the question has {len(cleaned)} characters; the limit is {settings.max_query_chars}: shorten it")
    return cleaned


def _checked_review(response: ReviewResponse, settings: Settings) -> ReviewResponse:
    """The review with its queries and notes within their caps, and analyst-added rows made unique by stable ID
    (a row entered twice is one deficiency, corrected once)."""
    limit = settings.max_query_chars
    for did, d in response.decisions.items():
        _cap(d.query, limit, f"the edited query of {did}", "WORKBENCH_MAX_QUERY_CHARS")
        _cap(d.note, MAX_NOTE_CHARS, f"the note on {did}")
    unique: dict[str, Any] = {}
    for n, added in enumerate(response.added, start=1):
        _cap(added.suggested_correction_query, limit, f"the query of added row {n}", "WORKBENCH_MAX_QUERY_CHARS")
        _cap(added.description, MAX_NOTE_CHARS, f"the description of added row {n}")
        _cap(added.note, MAX_NOTE_CHARS, f"the note of added row {n}")
        unique.setdefault(deficiency_id(added.deficiency_type, added.subject), added)
    return response.model_copy(update={"added": tuple(unique.values())})


def _cap(text: str | None, limit: int, what: str, setting: str | None = None) -> None:
    if text is not None and len(text) > limit:
        where = f" ({setting})" if setting else ""
        raise InputError(f"{what} has {len(text)} characters; the limit is {limit}{where}: shorten it")


def validate_as_of(as_of: date | str | None) -> date:
    """The as-of date, defaulting to today, within a sane range."""
    if as_of is None or as_of == "":
        return date.today()
    if isinstance(as_of, str):
        try:
            as_of = date.fromisoformat(as_of)
        except ValueError as exc:
            raise InputError(f"as-of date {as_of!r} is not a date in YYYY-MM-DD form") from exc
    latest = date(date.today().year + MAX_AS_OF_YEARS_AHEAD, 12, 31)
    if not (MIN_AS_OF <= as_of <= latest):
        raise InputError(f"as-of date {as_of.isoformat()} is outside {MIN_AS_OF.isoformat()}..{latest.isoformat()}")
    return as_of


class Workbench:
    """Facade over graph, store and persistence. Create once per process (the app caches it)."""

    def __init__(self, settings: Settings | None = None, *, store: Any = None, persistence: Persistence | None = None):
        self.settings = settings or get_settings()
        self._store = store
        self._persistence = persistence
        self._graphs: dict[str, Any] = {}
        self._stores: dict[str, Any] = {}
        self.planner, self.drafter, self.critic, self.engine_name = make_engines(self.settings)

    # ---------------------------------------------------------------------------------------------- wiring
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
            from core.retrieval.store import open_store

            self._stores[name] = open_store(self.settings, name)
        return self._stores[name]

    def _collection(self, collection: str | None) -> str:
        """The collection's name (default: the configured one), checked as an identifier."""
        from core.retrieval.names import validate_collection

        try:
            return validate_collection(self.settings.collection if collection is None else collection)
        except ValueError as exc:
            raise InputError(str(exc)) from None

    def graph(self, collection: str | None = None) -> Any:
        """The compiled loop for a collection. Its store opens when a node first uses it, so reading a session
        (show, export, sessions) never opens the corpus and works while another process holds the embedded store."""
        name = self._collection(collection)
        if name not in self._graphs:
            s = self.settings
            deps = Deps(
                store=_LazyStore(lambda: self.store(name)), planner=self.planner, drafter=self.drafter,
                critic=self.critic, settings=s,
                policy=TerminationPolicy(quality_threshold=s.quality_threshold,
                                         blocking_severity=Severity(s.blocking_severity),
                                         plateau_epsilon=s.plateau_epsilon, plateau_cycles=s.plateau_cycles),
                engine_name=self.engine_name,
            )
            self._graphs[name] = build_graph(deps, checkpointer=self.persistence.checkpointer)
        return self._graphs[name]

    # ------------------------------------------------------------------------------------------------ runs
    def start(
        self,
        question: str,
        *,
        as_of: date | str | None = None,
        max_cycles: int | None = None,
        approve: str | None = "manual",
        collection: str | None = None,
        user_id: str = "local",
        on_event: Callable[[ProgressEvent], None] | None = None,
    ) -> RunResult:
        """Start a new session and run it until it pauses for review or finishes."""
        q = validate_question(question, self.settings)
        day = validate_as_of(as_of)
        cycles = self.settings.max_cycles if max_cycles is None else max_cycles
        if not 0 <= cycles <= 50:
            raise InputError(f"max cycles must be between 0 and 50, not {cycles}")
        try:
            policy = ApprovalPolicy.parse(approve)
        except ValueError as exc:
            raise InputError(str(exc)) from exc
        store = self.store(collection)
        if store.count() == 0:
            raise InputError("the corpus is empty: ingest documents first (python -m core ingest PATH or the Corpus page)")
        thread_id = uuid.uuid4().hex[:12]
        now = _now()
        meta = {
            "question": q, "status": "running", "created_at": now, "updated_at": now, "user_id": user_id,
            "engine": self.engine_name, "collection": collection or self.settings.collection,
            "as_of": day.isoformat(), "elapsed_s": 0.0, "approval_policy": str(policy), "max_evaluation_cycles": cycles,
        }
        # the run lock first: a backend that refuses it (busy, out of connections) leaves no session behind
        with self._exclusive(thread_id):
            self._save_session(thread_id, meta)
            return self._run_locked(thread_id, _initial_state(thread_id, meta), on_event)

    def resume(self, thread_id: str, decisions: Any, *, on_event: Callable[[ProgressEvent], None] | None = None,
               user_id: str | None = None) -> RunResult:
        """Answer the pending review (approve / edit / reject per correction, added deficiencies, stop).

        The decisions must name the review they answer (`cycle`), and are checked under the session's lock: a
        second (stale) submission of the same decisions is refused as busy, as answered, or as meant for an
        earlier review, never applied to a later one.
        """
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._stored(thread_id, meta)
            if current.status != "awaiting_review" or not current.pending_review:
                hint = "; continue the cut-off run instead (continue_run)" if current.status == "interrupted" else ""
                raise InputError(f"session {thread_id} is not waiting for a review (status: {current.status}){hint}")
            try:
                response = ReviewResponse.parse(decisions)
            except ValueError as exc:
                raise InputError(f"invalid review decisions: {_first_error(exc)}") from exc
            response = _checked_review(response, self.settings)
            _check_review(response, current)
            return self._run_locked(thread_id, Command(resume=response.model_dump(mode="json")), on_event)

    def _run(self, thread_id: str, payload: Any, on_event: Callable[[ProgressEvent], None] | None) -> RunResult:
        with self._exclusive(thread_id):
            return self._run_locked(thread_id, payload, on_event)

    def _run_locked(self, thread_id: str, payload: Any, on_event: Callable[[ProgressEvent], None] | None) -> RunResult:
        """Stream the graph from `payload` until it pauses or ends; the caller holds the session's lock."""
        meta = self._session(thread_id)
        self.store(meta.get("collection"))  # a store held by another process fails here, before the session changes
        graph = self.graph(meta.get("collection"))
        config = {"configurable": {"thread_id": thread_id}, "recursion_limit": 200}
        started = time.perf_counter()
        self._save_session(thread_id, {**meta, "status": "running", "updated_at": _now()})
        try:
            for chunk in graph.stream(payload, config, stream_mode="updates", durability="sync"):
                if on_event is None:
                    continue
                for node, update in chunk.items():
                    if node.startswith("__"):
                        continue
                    on_event(_event(node, update))
        finally:
            result = self._result(thread_id, graph)
            stored = self._session(thread_id)
            if result.status == "empty":
                result.status = _without_checkpoint(stored)
            meta = {**stored, "status": result.status, "updated_at": _now(),
                    "quality_score": result.quality_score, "termination_reason": result.termination_reason,
                    "elapsed_s": round(stored.get("elapsed_s", 0.0) + time.perf_counter() - started, 4)}
            self._save_session(thread_id, meta)
        result.metrics["elapsed_s"] = meta["elapsed_s"]
        return result

    @contextmanager
    def _exclusive(self, thread_id: str) -> Iterator[None]:
        """One run or edit at a time per session: in this process (thread_lock), then among the processes and
        replicas sharing the backend (the persistence's run lock)."""
        with thread_lock(thread_id):
            with self.persistence.run_lock(thread_id) as acquired:
                if not acquired:
                    raise SessionBusyError(f"session {thread_id} is already running in another process or replica; "
                                           "wait for it to pause or finish")
                yield

    # -------------------------------------------------------------------------------------------- reading
    def show(self, thread_id: str, *, user_id: str | None = None) -> RunResult:
        """The session as stored (works across processes and after a crash).

        Status `running` while a run executes in this process; `interrupted` when a run was cut off (the process
        stopped mid-run): `continue_run` carries it on from its last checkpoint.
        """
        result = self._stored(thread_id, self._owned(thread_id, user_id))
        if result.status == "interrupted" and self.is_running(thread_id):
            result.status = "running"
        return result

    def _stored(self, thread_id: str, meta: dict[str, Any]) -> RunResult:
        """The session as its last checkpoint has it (callers holding the lock see `interrupted`, not `running`)."""
        result = self._result(thread_id, self.graph(meta.get("collection")))
        if result.status == "empty":
            result.status = _without_checkpoint(meta)
        result.metrics["elapsed_s"] = meta.get("elapsed_s", 0.0)
        return result

    def _result(self, thread_id: str, graph: Any) -> RunResult:
        snap = graph.get_state({"configurable": {"thread_id": thread_id}})
        v = snap.values or {}
        pending = None
        for task in snap.tasks:
            for intr in task.interrupts:
                pending = intr.value
        # a step with tasks means the run stopped inside it: some tasks still to run, or (a kill after the step's
        # writes were saved, before its checkpoint) none, while the step itself is not yet closed; both continue
        finished = bool(v.get("final_answer") is not None and "final_answer" in v and not snap.tasks)
        status = "awaiting_review" if pending else "interrupted" if snap.tasks else "completed" if finished else "empty"
        metrics = dict(v.get("metrics", {}))
        seconds = {k.split(".", 1)[1]: v2 for k, v2 in metrics.items() if k.startswith("seconds.")}
        out_metrics = {k: v2 for k, v2 in metrics.items() if not k.startswith("seconds.")}
        for key in ("retrievals", "critic_calls", "llm_calls"):
            out_metrics.setdefault(key, 0)
        out_metrics["node_seconds"] = seconds
        deficiencies = list(v.get("identified_deficiencies", []))
        reason = v.get("evaluation_termination_reason") if finished else None
        return RunResult(
            thread_id=thread_id, status=status, question=v.get("original_query", ""), as_of=v.get("as_of"),
            engine=v.get("engine", self.engine_name), approval_policy=v.get("approval_policy", "manual"),
            plan=v.get("plan"), answer=v.get("answer"),
            current_answer=v.get("current_answer", ""), final_answer=v.get("final_answer", ""),
            quality_score=v.get("quality_score"), termination_reason=reason,
            termination_text=describe(reason) if finished else "",
            residual_deficiencies=list(v.get("residual_deficiencies", [])) if finished else residual(deficiencies),
            identified_deficiencies=deficiencies, evaluation_history=list(v.get("evaluation_history", [])),
            citations=list(v.get("citations", [])), pending_review=pending, metrics=out_metrics,
            max_evaluation_cycles=v.get("max_evaluation_cycles", 0), evaluation_cycle=v.get("evaluation_cycle", 0),
        )

    def sessions(self, *, user_id: str | None = None) -> list[SessionSummary]:
        """Sessions newest first; only the user's own when a user is given."""
        items = self.persistence.store.search(SESSIONS_NS, limit=10_000)
        out = []
        for item in items:
            value = item.value
            if user_id is not None and value.get("user_id", "local") != user_id:
                continue
            summary = SessionSummary(thread_id=item.key, **{k: value.get(k) for k in SessionSummary.model_fields
                                                            if k != "thread_id" and value.get(k) is not None})
            if summary.status == "running" and not self._running_anywhere(item.key):
                cut = "interrupted" if "max_evaluation_cycles" in value or self.persistence.checkpointer.get_tuple(
                    {"configurable": {"thread_id": item.key}}) else "failed"
                summary = summary.model_copy(update={"status": cut})
            elif summary.status == "empty":
                summary = summary.model_copy(update={"status": "failed"})
            out.append(summary)
        return sorted(out, key=lambda s: s.created_at, reverse=True)

    def _running_anywhere(self, thread_id: str) -> bool:
        """Whether some process or replica executes this session now; a run cut off by a crash holds no lock."""
        if self.is_running(thread_id):
            return True
        with self.persistence.run_lock(thread_id) as free:
            return not free

    def verify_audit(self, thread_id: str, *, user_id: str | None = None) -> tuple[bool, str]:
        """Check the hash chain of the session's cycle records."""
        return verify_chain(self.show(thread_id, user_id=user_id).evaluation_history)

    # -------------------------------------------------------------------------------------------- editing
    def annotate(self, thread_id: str, deficiency_id: str, *, editor: str, reason: str, note: str | None = None,
                 accepted_risk: bool | None = None, severity: str | None = None,
                 user_id: str | None = None) -> RunResult:
        """After a run: record a note / accepted risk on a deficiency, with editor and reason in the checkpoint."""
        editor, reason = _CONTROL_RE.sub(" ", editor).strip(), _CONTROL_RE.sub(" ", reason).strip()
        note = _CONTROL_RE.sub(" ", note) if note is not None else None
        _cap(note, MAX_NOTE_CHARS, "the note")
        _cap(reason, MAX_NOTE_CHARS, "the reason")
        if not editor or not reason:
            raise InputError("an annotation needs the editor's name and a reason")
        if severity is not None and severity not in {s.value for s in Severity}:
            raise InputError(f"severity must be one of {', '.join(s.value for s in Severity)}, not {severity!r}")
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._stored(thread_id, meta)
            if current.status != "completed":
                raise InputError("annotations are made on finished sessions; while paused, edits travel with the review")
            found = [d for d in current.identified_deficiencies if d.id == deficiency_id]
            if not found:
                raise InputError(f"no deficiency {deficiency_id} in session {thread_id}")
            update: dict[str, Any] = {}
            if note is not None:
                update["analyst_note"] = note
            if accepted_risk is not None:
                update["accepted_risk"] = accepted_risk
            if severity is not None:
                update["severity"] = Severity(severity)
            changed = found[0].model_copy(update=update)
            graph = self.graph(self._session(thread_id).get("collection"))
            config = {"configurable": {"thread_id": thread_id}}
            deficiencies = [changed if d.id == deficiency_id else d for d in current.identified_deficiencies]
            left = residual(deficiencies)
            graph.update_state(
                config,
                {"identified_deficiencies": [changed], "residual_deficiencies": left,
                 "final_answer": final_text(current.current_answer, left),
                 "messages": [{"role": "analyst", "content": f"{editor} annotated {deficiency_id}: {reason}"}]},
                as_node="finalize",
            )
        self._annotate_metadata(thread_id, editor, reason, deficiency_id)
        return self.show(thread_id)

    def _annotate_metadata(self, thread_id: str, editor: str, reason: str, deficiency_id: str) -> None:
        meta = self._session(thread_id)
        edits = list(meta.get("edits", []))
        edits.append({"editor": editor, "reason": reason, "deficiency_id": deficiency_id, "at": _now()})
        self._save_session(thread_id, {**meta, "edits": edits, "updated_at": _now()})

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
        new_config = {"configurable": {"thread_id": new_id}}
        graph.update_state(new_config, target.values, as_node="critique")
        now = _now()
        self._save_session(new_id, {**meta, "status": "interrupted", "created_at": now, "updated_at": now,
                                    "parent_thread_id": thread_id, "branched_from_cycle": cycle,
                                    "user_id": user_id or meta.get("user_id", "local"), "edits": []})
        result = self._run(new_id, None, None)
        return result.thread_id

    def delete(self, thread_id: str, *, user_id: str | None = None) -> None:
        """Remove a session's checkpoints and its list entry."""
        self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            self.persistence.checkpointer.delete_thread(thread_id)
            self.persistence.store.delete(SESSIONS_NS, thread_id)

    # --------------------------------------------------------------------------------------------- export
    def export(self, thread_id: str, fmt: str, *, user_id: str | None = None) -> bytes:
        """The session rendered as md, json or docx."""
        from core.export import render

        result = self.show(thread_id, user_id=user_id)
        ok, message = verify_chain(result.evaluation_history)
        return render(result, fmt, audit_ok=ok, audit_message=message)

    # ------------------------------------------------------------------------------------------- sessions
    def _session(self, thread_id: str) -> dict[str, Any]:
        item = self.persistence.store.get(SESSIONS_NS, thread_id)
        if item is None:
            raise SessionNotFoundError(f"no session {thread_id}")
        return dict(item.value)

    def _owned(self, thread_id: str, user_id: str | None) -> dict[str, Any]:
        """The session's list entry; with a user, another user's session is reported exactly like a missing one."""
        meta = self._session(thread_id)
        if user_id is not None and meta.get("user_id", "local") != user_id:
            raise SessionNotFoundError(f"no session {thread_id}")
        return meta

    def _save_session(self, thread_id: str, value: dict[str, Any]) -> None:
        self.persistence.store.put(SESSIONS_NS, thread_id, value, index=False)

    # ------------------------------------------------------------------------------------- UI additions
    def is_running(self, thread_id: str) -> bool:
        """Whether a run is executing on this session in this process (the board is read-only meanwhile)."""
        lock = _thread_locks.get(thread_id)
        return lock is not None and lock.locked()

    def continue_run(self, thread_id: str, *, on_event: Callable[[ProgressEvent], None] | None = None,
                     user_id: str | None = None) -> RunResult:
        """Carry on a run that was cut off (process stopped mid-run) from its last checkpoint.

        LangGraph re-runs only the step that had not been saved: tasks whose writes reached the checkpointer
        (e.g. one of several parallel corrections) are not repeated, and an answered review is not asked again.
        A session cut off before its first checkpoint starts again from the inputs kept in its list entry.
        """
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._stored(thread_id, meta)
            if current.status != "interrupted":
                raise InputError(f"session {thread_id} was not cut off mid-run (status: {current.status})")
            saved = self.persistence.checkpointer.get_tuple({"configurable": {"thread_id": thread_id}})
            return self._run_locked(thread_id, None if saved else _initial_state(thread_id, meta), on_event)

    def ensure_sample_corpus(self, progress: Callable[[int, int, str], None] | None = None) -> Any:
        """Ingest the bundled sample corpus into an empty default collection; None when it holds documents."""
        from core.retrieval.ingest import ensure_sample_corpus

        return ensure_sample_corpus(self.store(), self.settings, progress)

    def ingest_uploads(self, files: list[tuple[str, bytes, dict[str, Any]]], *,
                       progress: Callable[[int, int, str], None] | None = None,
                       collection: str | None = None, replace: bool = False, user_id: str = "local") -> Any:
        """Ingest uploaded files `(name, content, metadata defaults)` as one batch (a document id used by two
        uploads is refused for the second); one IngestReport with per-file errors that name the upload.

        An upload whose document id is already indexed with other content is refused unless `replace` is set;
        a replacement records `user_id` and the time in the document's metadata."""
        import tempfile
        from pathlib import Path

        from core.retrieval.errors import IngestError
        from core.retrieval.ingest import FileResult, IngestReport, check_file_size, ingest_paths

        store = self.store(collection)
        total = len(files)
        results: dict[int, FileResult] = {}
        with tempfile.TemporaryDirectory(prefix="workbench-upload-") as tmp:
            written: dict[str, tuple[int, str, dict[str, Any]]] = {}
            for i, (name, content, defaults) in enumerate(files):
                display = Path(name).name or f"upload-{i + 1}"
                try:
                    check_file_size(display, len(content), self.settings)
                except IngestError as exc:
                    results[i] = FileResult(display, error=str(exc))
                    continue
                path = Path(tmp) / str(i) / display
                path.parent.mkdir()
                path.write_bytes(content)
                written[str(path)] = (i, display, defaults or {})

            def named(text: str) -> str:
                for tmp_path, (_, display, _) in written.items():
                    text = text.replace(tmp_path, display)
                return text

            refused = len(results)
            if progress is not None:
                for n, i in enumerate(sorted(results), start=1):
                    progress(n, total, results[i].path)
            report = ingest_paths(
                store, [Path(p) for p in written], settings=self.settings,
                defaults_for=lambda p: {**written[str(p)][2], "source_path": f"upload:{written[str(p)][1]}"},
                progress=None if progress is None else lambda done, _t, label: progress(refused + done, total, label),
                replace=replace, actor=user_id,
            )
            for r in report.results:
                i, display, _ = written[r.path]
                results[i] = FileResult(display, r.doc_ids, r.chunks, named(r.error) if r.error else None)
        return IngestReport(tuple(results[i] for i in sorted(results)))


class _LazyStore:
    """A store that is opened on its first use (see `Workbench.graph`)."""

    def __init__(self, open_store: Callable[[], Any]):
        self._open_store = open_store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._open_store(), name)


def _check_review(response: ReviewResponse, current: RunResult) -> None:
    """Refuse decisions that do not answer the pending review: another (or no) cycle, unknown deficiencies, a
    decision on a deficiency this review does not ask about (beyond the board's edits of severity, note or
    dismissal on addressed, unresolvable or dismissed ones), or a proposal left undecided."""
    review = current.pending_review or {}
    cycle = review.get("cycle")
    if response.cycle is None:
        raise InputError(f'the decisions do not name the review they answer: add "cycle": {cycle} '
                         f"(session {current.thread_id} waits at the review of cycle {cycle})")
    if response.cycle != cycle:
        raise InputError(f"the decisions answer the review of cycle {response.cycle}, but session {current.thread_id} "
                         f"waits at the review of cycle {cycle}: they are stale; decide the current proposals")
    by_id = {d.id: d for d in current.identified_deficiencies}
    unknown = set(response.decisions) - set(by_id)
    if unknown:
        raise InputError(f"decisions name unknown deficiencies: {', '.join(sorted(unknown))}")
    pending_ids = {p["id"] for p in review.get("proposals", [])}
    editable = {ResolutionStatus.addressed, ResolutionStatus.unresolvable, ResolutionStatus.dismissed}
    for did, decision in sorted(response.decisions.items()):
        if did in pending_ids:
            continue
        d = by_id[did]
        if d.resolution_status not in editable:
            why = "decided by the approval policy" if did in review.get("auto_decided", {}) else d.resolution_status.value
            raise InputError(f"{did} is not pending in the review of cycle {cycle} ({why}): remove its decision")
        if decision.action == "edit" or decision.query is not None:
            raise InputError(f"{did} is not pending in the review of cycle {cycle} ({d.resolution_status.value}): "
                             "its correction query is not run; only severity, note or dismissal can change")
    missing = pending_ids - set(response.decisions)
    if missing and not response.stop:
        raise InputError(f"no decision for {len(missing)} proposed correction(s): {', '.join(sorted(missing))}")


def _initial_state(thread_id: str, meta: dict[str, Any]) -> dict[str, Any]:
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


def _without_checkpoint(meta: dict[str, Any]) -> str:
    """Status of a session with no checkpoint: `interrupted` (continuable) when its list entry keeps the inputs
    to start it again, else `failed` (an entry from before those were kept)."""
    return "interrupted" if "max_evaluation_cycles" in meta and "approval_policy" in meta else "failed"


def _event(node: str, update: Any) -> ProgressEvent:
    data = update.update if isinstance(update, Command) else (update or {})
    if not isinstance(data, dict):
        data = {}
    cycle = data.get("evaluation_cycle", -1)
    detail = {
        "plan": _plan_detail(data),
        "retrieve": f"retrieved {len(data.get('retrieved_doc_ids', []))} documents",
        "draft": "drafted an answer",
        "critique": _critique_detail(data),
        "review": f"review decided {len(data.get('pending_decisions', []) or [])} correction(s)",
        "correct": f"correction retrieval: {len(data.get('evidence', []) or [])} passages",
        "revise": "revised the answer",
        "finalize": f"finished: {data.get('evaluation_termination_reason')}",
    }.get(node, node)
    if node == "critique" and data.get("evaluation_history"):
        cycle = data["evaluation_history"][-1].cycle_number
    return ProgressEvent(node=node, cycle=cycle, detail=detail)


def _plan_detail(data: dict[str, Any]) -> str:
    plan = data.get("plan")
    if plan is None:
        return "planned the research"
    codes = ", ".join(j.code for j in plan.jurisdictions) or "any jurisdiction"
    return f"planned {len(plan.items)} item(s) for {codes}"


def _critique_detail(data: dict[str, Any]) -> str:
    records = data.get("evaluation_history") or []
    if not records:
        return "critique"
    r = records[-1]
    return f"cycle {r.cycle_number}: score {r.overall_score:.2f}, {len(r.deficiencies_found)} deficiencies found, {len(r.deficiencies_resolved)} resolved"


def _first_error(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
