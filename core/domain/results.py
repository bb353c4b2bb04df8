"""What the service returns: a session's result, a row of the session list, a progress event, and the one place
where a session's status is derived from its checkpoint and its list entry."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from langgraph.types import Command
from pydantic import BaseModel, ConfigDict, Field

from core.domain.answer import Answer
from core.domain.audit import AuditRecord, SettingsSnapshot
from core.domain.deficiencies import residual
from core.domain.outcome import Outcome, OutcomeCounts, SessionStatus, count, outcome
from core.domain.plan import ResearchPlan
from core.domain.provenance import PartProvenance, provenance, written_by
from core.domain.records import Citation, Deficiency, EvaluationCycleRecord, HumanActRecord, Severity
from core.domain.stop_reasons import reason_label

S = SessionStatus


class RunResult(BaseModel):
    """Where a session stands: finished, or paused with a review pending."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    thread_id: str
    status: SessionStatus
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
    human_acts: list[HumanActRecord] = Field(default_factory=list)
    """Review decisions, board edits, added rows and annotations, chained with the cycle records."""
    citations: list[Citation] = Field(default_factory=list)
    pending_review: dict[str, Any] | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)
    max_evaluation_cycles: int = 0
    evaluation_cycle: int = 0
    user_id: str = "local"
    started_by: str = ""
    """Who asked the question (the reviewer's name in single-user mode, where `user_id` is `local`)."""
    settings: SettingsSnapshot | None = None
    """The termination and engine settings the session started with (None for sessions older than the snapshot)."""
    written_by: str = ""
    """Who wrote the answer: the model, the offline engine, or both (and what fell back), in one line."""
    provenance: list[PartProvenance] = Field(default_factory=list)
    """Per cycle and part (planner, drafter, reviser, critic): the model (in which mode) or the offline fallback
    (and why), from the cycle records' model calls."""

    @property
    def counts(self) -> OutcomeCounts:
        """The session's outcome counts, under the blocking severity and plateau epsilon it started with."""
        return count(
            self.identified_deficiencies,
            self.residual_deficiencies,
            self.evaluation_history,
            blocking=Severity(self.settings.blocking_severity) if self.settings else None,
            epsilon=self.settings.plateau_epsilon if self.settings else 0.0,
            pending_review=self.pending_review if self.status == S.awaiting_review else None,
            struck=len(self.answer.struck) if self.answer is not None else 0,
        )

    @property
    def outcome(self) -> Outcome:
        """Badge, headline and stop sentence: what every page, the CLI and the exports say of the session."""
        return outcome(self.status, self.termination_reason, self.counts)

    @property
    def audit_records(self) -> list[AuditRecord]:
        """Every record of the session's audit chain: cycle records and human acts."""
        return [*self.evaluation_history, *self.human_acts]

    def to_json(self) -> dict[str, Any]:
        """The `run --json` object."""
        return self.model_dump(mode="json")


class SessionSummary(BaseModel):
    """One row of the session list."""

    thread_id: str
    question: str
    status: SessionStatus
    quality_score: float | None = None
    termination_reason: str | None = None
    termination_text: str = ""
    """Why the loop stopped, in words ('' while it has not)."""
    created_at: str
    updated_at: str
    user_id: str = "local"
    engine: str = "offline"
    parent_thread_id: str | None = None
    branched_from_cycle: int | None = None
    counts: OutcomeCounts | None = None
    """The outcome counts kept with the list entry (None for an entry written before they were kept)."""

    @property
    def outcome(self) -> Outcome:
        """The same badge, headline and stop sentence as the session's own `RunResult.outcome`."""
        return outcome(self.status, self.termination_reason, self.counts)


@dataclass
class ProgressEvent:
    """A node finished: shown live by the UI and the CLI."""

    node: str
    cycle: int
    detail: str


def entry_status(meta: dict[str, Any], has_checkpoint: bool) -> SessionStatus:
    """Status of a session that nobody executes and whose checkpoint does not finish it: INTERRUPTED (continuable)
    when it has a checkpoint or its list entry keeps the inputs to start again, else FAILED."""
    if has_checkpoint or ("max_evaluation_cycles" in meta and "approval_policy" in meta):
        return S.interrupted
    return S.failed


def snapshot_result(thread_id: str, snap: Any, default_engine: str) -> RunResult:
    """The session as a LangGraph state snapshot has it. A step with tasks means the run stopped inside it (some
    tasks still to run, or a kill after the step's writes were saved, before its checkpoint): INTERRUPTED."""
    v = snap.values or {}
    pending = None
    for task in snap.tasks:
        for intr in task.interrupts:
            pending = intr.value
    finished = "final_answer" in v and v["final_answer"] is not None and not snap.tasks
    status = S.awaiting_review if pending else S.interrupted if snap.tasks else S.completed if finished else S.empty
    metrics = {
        "retrievals": 0,
        "critic_calls": 0,
        "llm_calls": 0,  # sessions of older versions kept seconds here
        **{k: n for k, n in v.get("metrics", {}).items() if not k.startswith("seconds.")},
    }
    deficiencies = list(v.get("identified_deficiencies", []))
    reason = v.get("evaluation_termination_reason") if finished else None
    engine = v.get("engine", default_engine)
    history = list(v.get("evaluation_history", []))
    result = RunResult(
        thread_id=thread_id,
        status=status,
        question=v.get("original_query", ""),
        as_of=v.get("as_of"),
        engine=engine,
        approval_policy=v.get("approval_policy", "manual"),
        plan=v.get("plan"),
        answer=v.get("answer"),
        current_answer=v.get("current_answer", ""),
        final_answer=v.get("final_answer", ""),
        quality_score=v.get("quality_score"),
        termination_reason=reason,
        residual_deficiencies=list(v.get("residual_deficiencies", [])) if finished else residual(deficiencies),
        identified_deficiencies=deficiencies,
        evaluation_history=history,
        written_by=written_by(engine, history, v.get("answer")) if history else "",
        provenance=provenance(history),
        human_acts=list(v.get("human_acts", [])),
        citations=list(v.get("citations", [])),
        pending_review=pending,
        metrics=metrics,
        max_evaluation_cycles=v.get("max_evaluation_cycles", 0),
        evaluation_cycle=v.get("evaluation_cycle", 0),
        user_id=v.get("user_id", "local"),
    )
    result.termination_text = result.outcome.reason
    return result


def with_entry_figures(result: RunResult, meta: Mapping[str, Any]) -> RunResult:
    """The result with what the session's list entry keeps outside the checkpoints: `elapsed_s`, `node_seconds`
    (seconds per node, per cycle) and the settings snapshot taken at start."""
    result.metrics["elapsed_s"] = meta.get("elapsed_s", 0.0)
    if meta.get("settings"):
        result.settings = SettingsSnapshot.model_validate(meta["settings"])
    result.metrics["node_seconds"] = cycle_seconds(meta, result.evaluation_history)
    result.started_by = meta.get("started_by", "")
    return result


def cycle_seconds(meta: Mapping[str, Any], history: Sequence[EvaluationCycleRecord]) -> dict[int, dict[str, float]]:
    """Seconds per node for each cycle, from the session's list entry; for a session recorded before timings
    moved there, the differences of the running totals its cycle records carry."""
    if "node_seconds" in meta:
        kept = meta["node_seconds"]
        return {int(cycle): dict(kept[cycle]) for cycle in sorted(kept, key=int)}
    out: dict[int, dict[str, float]] = {}
    before: dict[str, float] = {}
    for r in history:
        if r.node_seconds is None:
            continue
        out[r.cycle_number] = {
            k: round(v - before.get(k, 0.0), 4) for k, v in r.node_seconds.items() if v - before.get(k, 0.0) > 0
        }
        before = r.node_seconds
    return out


def progress_event(node: str, update: Any) -> ProgressEvent:
    """The live line for a node that finished with `update`."""
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
        "correct": f"found {len(data.get('evidence', []) or [])} passages",
        "revise": "revised the answer",
        "finalize": f"stopped: {reason_label(data.get('evaluation_termination_reason'))}",
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
    return (
        f"cycle {r.cycle_number}: score {r.overall_score:.2f}, {len(r.deficiencies_found)} deficiencies found, "
        f"{len(r.deficiencies_resolved)} resolved"
    )
