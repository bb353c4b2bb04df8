"""The critique node, in the steps of the design: run the critic, reconcile the findings with the known
deficiencies, follow the score, decide whether the loop stops, and seal the cycle's audit record."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from langgraph.runtime import Runtime

from core.config import Settings
from core.domain.answer import Answer
from core.domain.audit import chain_head
from core.domain.clock import utc_now
from core.domain.deficiencies import reconcile
from core.domain.provenance import calls_note
from core.domain.records import Deficiency, EvaluationCycleRecord, ResolutionStatus
from core.domain.stop_reasons import LLM_BUDGET_EXHAUSTED
from core.engines.base import Usage
from core.loop.deps import Deps, usage_metrics
from core.loop.state import WorkbenchState
from core.loop.termination import decide, next_plateau_streak

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Findings:
    """What one critique found: deficiencies and score, the model usage, which critics ran, their notes, and the
    component that failed (None when the critique was possible)."""

    deficiencies: tuple[Deficiency, ...]
    score: float
    usage: Usage = field(default_factory=Usage)
    critics: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    degraded: str | None = None


def critique(state: WorkbenchState, runtime: Runtime[Deps]) -> dict[str, Any]:
    """Critique the current answer: findings -> reconciled deficiencies -> score trend -> stop reason -> record."""
    deps = runtime.context
    findings = run_critic(state, deps)
    deficiencies = reconciled(state, findings, deps.settings.unresolvable_after)
    plateau = next_plateau_streak(
        state.get("last_evaluation_score"),
        findings.score,
        state.get("plateau_streak", 0),
        deps.settings.plateau_epsilon,
    )
    reason, why = stop_reason(state, findings, deficiencies, plateau, deps)
    record = seal(state, findings, deficiencies, why, deps.engine_name)
    return {
        "identified_deficiencies": deficiencies,
        "evaluation_history": [record],
        "last_evaluation_score": findings.score,
        "quality_score": findings.score,
        "plateau_streak": plateau,
        "evaluation_termination_reason": reason,
        "degraded": findings.degraded,
        "pending_decisions": None,
        "pending_queries": None,
        "evidence": None,
        "cycle_notes": None,
        "model_calls": None,
        "metrics": {"critic_calls": 1, **usage_metrics(findings.usage)},
    }


def run_critic(state: WorkbenchState, deps: Deps) -> Findings:
    """The critic's findings on the current answer; none (and the failed component) when an earlier step or the
    critic itself failed, keeping the last score so a failure does not read as a collapse."""
    if state.get("degraded"):
        return Findings(
            (), 0.0, notes=(f"{state['degraded']} failed; no critique was possible",), degraded=state["degraded"]
        )
    try:
        result = deps.critic.critique(
            state["plan"],
            state.get("answer") or Answer(),
            state.get("identified_deficiencies", []),
            deps.context(state["as_of"]),
        )
    except Exception as exc:
        log.exception("critique failed")
        return Findings(
            (),
            state.get("last_evaluation_score") or 0.0,
            notes=(f"critic failed: {exc}",),
            degraded=getattr(exc, "component", "critic"),
        )
    return Findings(
        tuple(result.deficiencies),
        result.held_score(state["plan"], deps.settings.quality_threshold),
        result.usage,
        tuple(result.critics),
        tuple(result.notes),
        result.degraded,
    )


def reconciled(state: WorkbenchState, findings: Findings, unresolvable_after: int) -> list[Deficiency]:
    """The deficiencies after this critique (core.domain.deficiencies.reconcile); unchanged when a failure left nothing
    to judge them by."""
    previous = state.get("identified_deficiencies", [])
    if findings.degraded and not findings.deficiencies:
        return list(previous)
    return reconcile(previous, findings.deficiencies, state.get("evaluation_cycle", 0), unresolvable_after)


def stop_reason(
    state: WorkbenchState, findings: Findings, deficiencies: list[Deficiency], plateau: int, deps: Deps
) -> tuple[str | None, list[str]]:
    """Why the loop stops after this critique (the termination policy, then the session's LLM budget), or None;
    with the notes that explain a budget stop."""
    reason = decide(
        deficiencies=deficiencies,
        score=findings.score,
        cycle=state.get("evaluation_cycle", 0),
        max_cycles=state["max_evaluation_cycles"],
        plateau_streak=plateau,
        policy=deps.policy,
        degraded=findings.degraded,
    )
    budget = budget_note(deps.settings, state, findings.usage)
    if budget:
        return reason or LLM_BUDGET_EXHAUSTED, [budget]
    return reason, []


def budget_note(settings: Settings, state: WorkbenchState, critic: Usage) -> str | None:
    """Why the session's LLM budget is used up after this critique, or None (0 in a setting means unlimited)."""
    m = state.get("metrics", {})
    calls = int(m.get("llm_calls", 0)) + critic.llm_calls
    tokens = (
        int(m.get("prompt_tokens", 0) + m.get("completion_tokens", 0)) + critic.prompt_tokens + critic.completion_tokens
    )
    if settings.llm_budget_calls and calls >= settings.llm_budget_calls:
        return f"llm budget exhausted: {calls} of {settings.llm_budget_calls} calls used"
    if settings.llm_budget_tokens and tokens >= settings.llm_budget_tokens:
        return f"llm budget exhausted: {tokens} of {settings.llm_budget_tokens} tokens used"
    return None


def seal(
    state: WorkbenchState, findings: Findings, deficiencies: list[Deficiency], notes: list[str], engine: str
) -> EvaluationCycleRecord:
    """This cycle's audit record, chained to the previous one: what was found and resolved, the score, the
    review's decisions and queries that led here, counts, the answer critiqued, the notes and model usage; linked to
    the head of the audit chain (the last cycle record or human act)."""
    before = {d.id: d.resolution_status for d in state.get("identified_deficiencies", [])}
    resolved_now = [
        d.id
        for d in deficiencies
        if d.resolution_status == ResolutionStatus.resolved and before.get(d.id) != ResolutionStatus.resolved
    ]
    spent = cycle_usage(state, findings.usage)
    calls = (*state.get("model_calls", []), *findings.usage.calls)
    said = calls_note(calls)
    return EvaluationCycleRecord(
        cycle_number=state.get("evaluation_cycle", 0),
        timestamp=utc_now(),
        deficiencies_found=tuple(d.id for d in findings.deficiencies),
        deficiencies_resolved=tuple(resolved_now),
        overall_score=findings.score,
        retrieval_queries_issued=tuple(state.get("pending_queries", [])),
        decisions=tuple(state.get("pending_decisions", [])),
        engine=engine,
        critics=findings.critics,
        status_counts=dict(Counter(d.resolution_status.value for d in deficiencies)),
        type_counts=dict(Counter(d.deficiency_type.value for d in deficiencies)),
        answer=state.get("current_answer", ""),
        notes=(*state.get("cycle_notes", []), *((said,) if said else ()), *findings.notes, *notes),
        llm_calls=spent.llm_calls,
        prompt_tokens=spent.prompt_tokens,
        completion_tokens=spent.completion_tokens,
        model_calls=calls,
    ).sealed(chain_head([*state.get("evaluation_history", []), *state.get("human_acts", [])]))


def cycle_usage(state: WorkbenchState, critic: Usage) -> Usage:
    """Model usage of this cycle: the critic's plus what draft/revise spent since the previous record."""
    m = state.get("metrics", {})
    history = state.get("evaluation_history", [])
    return Usage(
        llm_calls=int(m.get("llm_calls", 0)) - sum(r.llm_calls for r in history) + critic.llm_calls,
        prompt_tokens=int(m.get("prompt_tokens", 0)) - sum(r.prompt_tokens for r in history) + critic.prompt_tokens,
        completion_tokens=int(m.get("completion_tokens", 0))
        - sum(r.completion_tokens for r in history)
        + critic.completion_tokens,
    )
