"""Node functions of the evaluation loop. Each reads the state, calls an engine or the store, returns an update.

Nodes never import the UI. Side effects (retrieval) happen only in `retrieve` and in `correct`, which runs
strictly after the review interrupt.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass
from datetime import date
from typing import Any, Callable, Iterable

from langgraph.types import Command, Send, interrupt

from core.config import Settings
from core.deficiencies import Event, apply, open_ones, reconcile, residual
from core.answer import Answer, gap_for, render_markdown
from core.engines.base import Critic, Drafter, EngineContext, Planner, Usage
from core.engines.text import overlap, sentences, term_set
from core.figures import figures
from core.plan import PlanItem, ResearchPlan
from core.retrieval.models import Hit, SearchFilter
from core.retrieval.plan_search import search_plan
from core.clock import utc_now
from core.state import (
    AnalystDeficiency,
    ApprovalPolicy,
    Citation,
    DecisionRecord,
    Deficiency,
    DeficiencyType,
    EvaluationCycleRecord,
    Evidence,
    ResolutionStatus,
    ReviewDecision,
    ReviewResponse,
    WorkbenchState,
)
from core.termination import LLM_BUDGET_EXHAUSTED, STOPPED_BY_ANALYST, TerminationPolicy, decide, next_plateau_streak

log = logging.getLogger(__name__)
EVIDENCE_SENTENCES = 5


@dataclass(frozen=True)
class Deps:
    """What the nodes need besides the state."""

    store: Any
    planner: Planner
    drafter: Drafter
    critic: Critic
    settings: Settings
    policy: TerminationPolicy
    engine_name: str

    def context(self, as_of: date) -> EngineContext:
        """Engine context at the session's as-of date over this store (see `context_of`)."""
        return self.context_of(self.store, as_of)

    @staticmethod
    def context_of(store: Any, as_of: date) -> EngineContext:
        """Engine context at the session's as-of date, over the current catalog; document text is read once per
        context, since a critique checks many figures against the same cited documents."""
        chunks = functools.lru_cache(maxsize=None)(store.chunks)
        return EngineContext(catalog=store.catalog(), as_of=as_of,
                             doc_text=lambda doc_id: "\n".join(c.text for c in chunks(doc_id)),
                             passage=lambda chunk_id: getattr(_chunk(chunks, chunk_id), "text", ""),
                             chunk=lambda chunk_id: _chunk(chunks, chunk_id))


def _chunk(chunks: Callable[[str], list[Any]], chunk_id: str) -> Any:
    """One passage by its chunk id (`doc-id#index`), None when the corpus does not hold it."""
    doc_id, _, index = chunk_id.rpartition("#")
    if not doc_id or not index.isdigit():
        return None
    return next((c for c in chunks(doc_id) if c.chunk_index == int(index)), None)


def names_of(plan: ResearchPlan | None) -> dict[str, str]:
    """Jurisdiction code -> the name the plan knows it by, for section headings."""
    return {j.code: j.name for j in plan.jurisdictions} if plan else {}


def rendered(answer: Answer, plan: ResearchPlan | None, citations: Iterable[Citation] = ()) -> str:
    """The Markdown of a typed answer (kept in the state for pages, exports and the audit record)."""
    return render_markdown(answer, plan, names_of(plan), source_names(citations))


def source_names(citations: Iterable[Citation]) -> dict[str, str]:
    """How each cited document is named under its section: title, citation and status at the as-of date."""
    out = {}
    for c in citations:
        status = c.status_at_as_of.replace("_", " ")
        out[c.doc_id] = f"{c.title}" + (f", {c.citation}" if c.citation else "") + f" ({status})"
    return out


NodeObserver = Callable[[str, float, float], None]
_observers: list[NodeObserver] = []


def observe_nodes(observer: NodeObserver | None) -> None:
    """Profiling hook: call `observer(node, start, end)` (perf_counter times) after every node; None removes all."""
    if observer is None:
        _observers.clear()
    else:
        _observers.append(observer)


def timed(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the node's wall time to `metrics["seconds.<node>"]`, whatever the node returns."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(state: WorkbenchState) -> Any:
            start = time.perf_counter()
            out = fn(state)
            end = time.perf_counter()
            for observer in _observers:
                observer(name, start, end)
            spent = {f"seconds.{name}": end - start}
            if isinstance(out, Command):
                update = dict(out.update or {})
                update["metrics"] = {**update.get("metrics", {}), **spent}
                return Command(goto=out.goto, update=update, graph=out.graph)
            out = dict(out or {})
            out["metrics"] = {**out.get("metrics", {}), **spent}
            return out

        return run

    return wrap


def _usage_metrics(usage: Usage) -> dict[str, float]:
    return {"llm_calls": usage.llm_calls, "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens}


def _engine_notes(notes: Iterable[str], cycle: int) -> list[dict[str, Any]]:
    """Engine notes (fallbacks, retries) as messages tagged with the cycle whose record will carry them."""
    return [{"role": "engine", "cycle": cycle, "content": n} for n in notes]


def _cycle_usage(state: WorkbenchState, critic: Usage) -> Usage:
    """Model usage of this cycle: the critic's plus what draft/revise spent since the previous record."""
    m = state.get("metrics", {})
    history = state.get("evaluation_history", [])
    return Usage(
        llm_calls=int(m.get("llm_calls", 0)) - sum(r.llm_calls for r in history) + critic.llm_calls,
        prompt_tokens=int(m.get("prompt_tokens", 0)) - sum(r.prompt_tokens for r in history) + critic.prompt_tokens,
        completion_tokens=int(m.get("completion_tokens", 0)) - sum(r.completion_tokens for r in history)
        + critic.completion_tokens,
    )


def _budget_note(settings: Settings, state: WorkbenchState, critic: Usage) -> str | None:
    """Why the session's LLM budget is used up after this critique, or None (0 in a setting means unlimited)."""
    m = state.get("metrics", {})
    calls = int(m.get("llm_calls", 0)) + critic.llm_calls
    tokens = int(m.get("prompt_tokens", 0) + m.get("completion_tokens", 0)) + critic.prompt_tokens + critic.completion_tokens
    if settings.llm_budget_calls and calls >= settings.llm_budget_calls:
        return f"llm budget exhausted: {calls} of {settings.llm_budget_calls} calls used"
    if settings.llm_budget_tokens and tokens >= settings.llm_budget_tokens:
        return f"llm budget exhausted: {tokens} of {settings.llm_budget_tokens} tokens used"
    return None


def _evidence_sentences(hit: Hit, query: str, flt: dict[str, Any]) -> tuple[str, ...]:
    """Whole sentences of the passage that best serve the correction: those stating the wanted figure first."""
    unit, values = flt.get("unit"), set(flt.get("values", ()))
    wanted = term_set(query)

    def key(sentence: str) -> tuple[bool, float]:
        has = bool(unit) and any(f.unit == unit and (not values or f.value in values) for f in figures(sentence))
        return not has, -overlap(wanted, sentence)

    return tuple(sorted(sentences(hit.text), key=key)[:EVIDENCE_SENTENCES])


def make_nodes(deps: Deps) -> dict[str, Callable[..., Any]]:
    """The node functions bound to their dependencies."""
    settings = deps.settings

    @timed("plan")
    def plan(state: WorkbenchState) -> dict[str, Any]:
        try:
            result = deps.planner.plan(state["original_query"], deps.context(state["as_of"]))
        except Exception as exc:  # noqa: BLE001 - a failed planner degrades the run honestly
            log.exception("planning failed")
            return {"degraded": getattr(exc, "component", "planner"),
                    "messages": [{"role": "system", "cycle": 0, "content": f"planning failed: {exc}"}]}
        return {"plan": result.plan, "metrics": _usage_metrics(result.usage),
                "messages": _engine_notes(result.notes, 0)}

    @timed("retrieve")
    def retrieve(state: WorkbenchState) -> dict[str, Any]:
        if state.get("degraded"):
            return {}
        research = state["plan"]
        try:
            found, calls = search_plan(deps.store, research, k=settings.retrieval_k)
        except Exception as exc:  # noqa: BLE001 - any store failure degrades the run, never loses it
            log.exception("retrieval failed")
            return {"degraded": "retrieval", "messages": [{"role": "system", "content": f"retrieval failed: {exc}"}]}
        snippets = [
            {"plan_item_id": item_id, "doc_id": h.doc_id, "chunk_id": h.chunk_id, "chunk_index": h.chunk_index,
             "score": round(h.score, 4), "jurisdiction": h.jurisdiction, "title": h.title, "status": h.status}
            for item_id, hits in found.items() for h in hits
        ]
        return {"retrieved_doc_ids": list(dict.fromkeys(s["doc_id"] for s in snippets)),
                "retrieved_snippets": snippets, "metrics": {"retrievals": 1, "retrieval_queries": calls}}

    @timed("draft")
    def draft(state: WorkbenchState) -> dict[str, Any]:
        if state.get("degraded"):
            return {}
        ctx = deps.context(state["as_of"])
        research = state["plan"]
        hits = _rehydrate(deps.store, state.get("retrieved_snippets", []))
        try:
            result = deps.drafter.draft(research, hits, ctx)
        except Exception as exc:  # noqa: BLE001 - a failed drafter degrades the run honestly
            log.exception("drafting failed")
            return {"degraded": getattr(exc, "component", "drafter"), "current_answer": "",
                    "messages": [{"role": "system", "cycle": 0, "content": f"drafting failed: {exc}"}]}
        return {"answer": result.answer, "current_answer": rendered(result.answer, research, result.citations),
                "citations": result.citations, "evaluation_cycle": 0,
                "metrics": _usage_metrics(result.usage), "messages": _engine_notes(result.notes, 0)}

    @timed("critique")
    def critique(state: WorkbenchState) -> dict[str, Any]:
        cycle = state.get("evaluation_cycle", 0)
        previous = state.get("identified_deficiencies", [])
        degraded = state.get("degraded")
        notes: list[str] = []
        usage = Usage()
        critics: tuple[str, ...] = ()
        notes.extend(m["content"] for m in state.get("messages", []) if m.get("cycle") == cycle)
        if degraded:
            found, score = [], 0.0
            notes.append(f"{degraded} failed; no critique was possible")
        else:
            try:
                result = deps.critic.critique(state["plan"], state.get("answer") or Answer(), previous,
                                              deps.context(state["as_of"]))
                found, score, usage, critics = result.deficiencies, result.score, result.usage, result.critics
                notes.extend(result.notes)
                degraded = result.degraded
            except Exception as exc:  # noqa: BLE001 - the loop ends honestly instead of crashing
                log.exception("critique failed")
                found, score = [], state.get("last_evaluation_score") or 0.0
                degraded = getattr(exc, "component", "critic")
                notes.append(f"critic failed: {exc}")
        updated = reconcile(previous, found, cycle, settings.unresolvable_after) if not degraded or found else list(previous)
        before = {d.id: d.resolution_status for d in previous}
        resolved_now = [d.id for d in updated
                        if d.resolution_status == ResolutionStatus.resolved and before.get(d.id) != ResolutionStatus.resolved]
        last = state.get("last_evaluation_score")
        plateau = next_plateau_streak(last, score, state.get("plateau_streak", 0), settings.plateau_epsilon)
        improving = state.get("consecutive_score_improvement_streak", 0) + 1 if last is not None and score > last else 0
        reason = decide(deficiencies=updated, score=score, cycle=cycle, max_cycles=state["max_evaluation_cycles"],
                        plateau_streak=plateau, policy=deps.policy, degraded=degraded)
        budget = _budget_note(settings, state, usage)
        if budget:
            notes.append(budget)
            reason = reason or LLM_BUDGET_EXHAUSTED
        spent = _cycle_usage(state, usage)
        history = state.get("evaluation_history", [])
        status_counts: dict[str, int] = {}
        type_counts: dict[str, int] = {}
        for d in updated:
            status_counts[d.resolution_status.value] = status_counts.get(d.resolution_status.value, 0) + 1
            type_counts[d.deficiency_type.value] = type_counts.get(d.deficiency_type.value, 0) + 1
        seconds = {k.split(".", 1)[1]: round(v, 4) for k, v in state.get("metrics", {}).items() if k.startswith("seconds.")}
        record = EvaluationCycleRecord(
            cycle_number=cycle,
            timestamp=utc_now(),
            deficiencies_found=tuple(d.id for d in found),
            deficiencies_resolved=tuple(resolved_now),
            overall_score=score,
            retrieval_queries_issued=tuple(state.get("pending_queries", [])),
            decisions=tuple(state.get("pending_decisions", [])),
            engine=deps.engine_name,
            critics=critics,
            node_seconds=seconds,
            status_counts=status_counts,
            type_counts=type_counts,
            answer=state.get("current_answer", ""),
            notes=tuple(notes),
            llm_calls=spent.llm_calls,
            prompt_tokens=spent.prompt_tokens,
            completion_tokens=spent.completion_tokens,
        ).sealed(history[-1].record_hash if history else "")
        return {
            "identified_deficiencies": updated,
            "evaluation_history": [record],
            "last_evaluation_score": score,
            "quality_score": score,
            "plateau_streak": plateau,
            "consecutive_score_improvement_streak": improving,
            "evaluation_termination_reason": reason,
            "degraded": degraded,
            "pending_decisions": None,
            "pending_queries": None,
            "evidence": None,
            "metrics": {"critic_calls": 1, **_usage_metrics(usage)},
        }

    @timed("review")
    def review(state: WorkbenchState) -> Command:
        cycle = state.get("evaluation_cycle", 0)
        waiting_on = open_ones(state.get("identified_deficiencies", []))
        policy = ApprovalPolicy.parse(state.get("approval_policy"))
        auto: dict[str, ReviewDecision] = {}
        for d in waiting_on:
            if policy.mode == "all" or (policy.mode == "severity" and d.severity.rank >= policy.min_severity.rank):
                auto[d.id] = ReviewDecision(action="approve", note=f"auto-approved by policy {policy}")
            elif policy.mode == "none":
                auto[d.id] = ReviewDecision(action="reject", note=f"auto-rejected by policy {policy}")
        pending = [d for d in waiting_on if d.id not in auto]
        response = ReviewResponse()
        if pending:
            payload = {
                "cycle": cycle,
                "proposals": [proposal(d) for d in pending],
                "auto_decided": {k: v.action for k, v in auto.items()},
                "answer": state.get("current_answer", ""),
            }
            response = ReviewResponse.parse(interrupt(payload))
        return _apply_review(state, cycle, pending, auto, response)

    @timed("correct")
    def correct(task: dict[str, Any]) -> dict[str, Any]:
        d: Deficiency = task["deficiency"]
        query: str = task["query"]
        if not query.strip():
            addressed = apply(d, Event.approved_and_retrieved, settings.unresolvable_after)
            return {"identified_deficiencies": [addressed]}
        flt = SearchFilter(
            jurisdictions=tuple(d.correction_filter.get("jurisdictions", ())),
            doc_ids=tuple(d.correction_filter.get("doc_ids", ())),
            exclude_doc_ids=tuple(d.correction_filter.get("exclude_doc_ids", ())),
            statuses=("in_force", "not_yet_applicable"),
        )
        items = {i.id for i in task["plan"].items} if task.get("plan") else set()
        try:
            hits = deps.store.search(query, k=settings.correction_k, flt=flt)
        except Exception as exc:  # noqa: BLE001 - a failed correction stays open and is retried or disclosed
            log.exception("correction retrieval failed")
            return {"pending_queries": [query], "messages": [{"role": "system", "content": f"correction retrieval failed: {exc}"}],
                    "metrics": {"retrievals": 1}}
        evidence = [
            Evidence(deficiency_id=d.id, query=query, doc_id=h.doc_id, chunk_id=h.chunk_id, title=h.title,
                     jurisdiction=h.jurisdiction, status=h.status, snippet=" ".join(picked), sentences=picked,
                     score=round(h.score, 4), cycle=task["cycle"], plan_item_id=d.subject if d.subject in items else "")
            for h in hits
            if (picked := _evidence_sentences(h, query, d.correction_filter))
        ]
        addressed = apply(d, Event.approved_and_retrieved, settings.unresolvable_after).model_copy(
            update={"evidence_doc_ids": tuple(dict.fromkeys([*d.evidence_doc_ids, *(h.doc_id for h in hits)]))}
        )
        return {"evidence": evidence, "identified_deficiencies": [addressed], "pending_queries": [query],
                "metrics": {"retrievals": 1}}

    @timed("revise")
    def revise(state: WorkbenchState) -> dict[str, Any]:
        approved = _approved_ids(state)
        addressed = [d for d in state.get("identified_deficiencies", [])
                     if d.resolution_status == ResolutionStatus.addressed and d.id in approved]
        ctx = deps.context(state["as_of"])
        try:
            result = deps.drafter.revise(state["plan"], state.get("answer") or Answer(), addressed,
                                         state.get("evidence", []), ctx)
        except Exception as exc:  # noqa: BLE001 - keep the last answer and end honestly
            log.exception("revision failed")
            return {"degraded": getattr(exc, "component", "drafter"), "evaluation_cycle": state.get("evaluation_cycle", 0) + 1,
                    "messages": [{"role": "system", "cycle": state.get("evaluation_cycle", 0) + 1,
                                  "content": f"revision failed: {exc}"}]}
        return {"answer": result.answer, "current_answer": rendered(result.answer, state["plan"], result.citations),
                "citations": result.citations, "evaluation_cycle": state.get("evaluation_cycle", 0) + 1, "metrics": _usage_metrics(result.usage),
                "messages": _engine_notes(result.notes, state.get("evaluation_cycle", 0) + 1)}

    @timed("finalize")
    def finalize(state: WorkbenchState) -> dict[str, Any]:
        deficiencies = state.get("identified_deficiencies", [])
        left = residual(deficiencies)
        reason = state.get("evaluation_termination_reason") or decide(
            deficiencies=deficiencies, score=state.get("last_evaluation_score") or 0.0,
            cycle=state.get("evaluation_cycle", 0), max_cycles=state.get("max_evaluation_cycles", 0),
            plateau_streak=state.get("plateau_streak", 0), policy=deps.policy, degraded=state.get("degraded"),
        ) or "max_cycles_reached"
        answer = with_gaps(state.get("answer") or Answer(), state.get("plan"), left)
        current = (rendered(answer, state.get("plan"), state.get("citations", [])) if state.get("plan")
                   else state.get("current_answer", ""))
        return {
            "answer": answer,
            "current_answer": current,
            "final_answer": final_text(current, left),
            "quality_score": state.get("last_evaluation_score") or 0.0,
            "residual_deficiencies": left,
            "evaluation_termination_reason": reason,
        }

    return {"plan": plan, "retrieve": retrieve, "draft": draft, "critique": critique, "review": review, "correct": correct,
            "revise": revise, "finalize": finalize}


def _approved_ids(state: WorkbenchState) -> set[str]:
    """Deficiencies whose correction this cycle's review sent to `correct` (approved, edited or analyst-added)."""
    return {r.deficiency_id for r in state.get("pending_decisions", []) if r.action in ("approve", "edit", "add")}


def proposal(d: Deficiency) -> dict[str, Any]:
    """The JSON form of one proposed correction in the review interrupt."""
    return {"id": d.id, "deficiency_type": d.deficiency_type.value, "subject": d.subject, "description": d.description,
            "severity": d.severity.value, "query": d.suggested_correction_query, "section": d.affected_section,
            "attempts": d.resolution_attempt_count}


def _apply_review(state: WorkbenchState, cycle: int, pending: list[Deficiency], auto: dict[str, ReviewDecision],
                  response: ReviewResponse) -> Command:
    """Turn decisions into deficiency updates, audit records and one `Send` per approved correction."""
    by_id = {d.id: d for d in state.get("identified_deficiencies", [])}
    records: list[DecisionRecord] = []
    updates: list[Deficiency] = []
    sends: list[Send] = []
    decisions: dict[str, tuple[ReviewDecision, bool]] = {k: (v, True) for k, v in auto.items()}
    for d in pending:
        given = response.decisions.get(d.id)
        decisions[d.id] = (given, False) if given else (
            ReviewDecision(action="reject", note="no decision given in the review; not retried"), False)
    for did, given in response.decisions.items():
        if did in by_id and did not in decisions and by_id[did].resolution_status != ResolutionStatus.resolved:
            decisions[did] = (given, False)
    if response.stop:
        for d in pending:
            records.append(DecisionRecord(deficiency_id=d.id, action="stop", decided_by=response.reviewer))
        return Command(goto="finalize", update={"evaluation_termination_reason": STOPPED_BY_ANALYST,
                                                "pending_decisions": records})
    for did, (dec, automatic) in decisions.items():
        d = by_id[did]
        if dec.severity is not None:
            d = d.model_copy(update={"severity": dec.severity})
        if dec.note:
            d = d.model_copy(update={"analyst_note": dec.note})
        who = "policy" if automatic else response.reviewer
        records.append(DecisionRecord(deficiency_id=did, action=dec.action, query=dec.query, note=dec.note,
                                      decided_by=who, automatic=automatic))
        if dec.action == "reject":
            if d.resolution_status in (ResolutionStatus.open, ResolutionStatus.addressed):
                d = apply(d, Event.rejected, 1)
            updates.append(d)
            continue
        if d.resolution_status != ResolutionStatus.open:
            updates.append(d)
            continue
        query = dec.query or d.suggested_correction_query
        d = d.model_copy(update={"suggested_correction_query": query})
        updates.append(d)
        sends.append(Send("correct", {"deficiency": d, "query": query, "cycle": cycle, "plan": state.get("plan")}))
    for added in response.added:
        d = analyst_deficiency(added, cycle)
        records.append(DecisionRecord(deficiency_id=d.id, action="add", query=d.suggested_correction_query,
                                      note=added.note, decided_by=response.reviewer))
        updates.append(d)
        sends.append(Send("correct", {"deficiency": d, "query": d.suggested_correction_query, "cycle": cycle}))
    update: dict[str, Any] = {"identified_deficiencies": updates, "pending_decisions": records}
    if sends:
        return Command(goto=sends, update=update)
    return Command(goto="finalize", update=update)


def analyst_deficiency(added: AnalystDeficiency, cycle: int) -> Deficiency:
    """A board-added deficiency as a full Deficiency with origin `analyst`."""
    return Deficiency(
        deficiency_type=added.deficiency_type, subject=added.subject, description=added.description,
        suggested_correction_query=added.suggested_correction_query, severity=added.severity,
        identified_at_cycle=cycle, origin="analyst", analyst_note=added.note,
    )


def _rehydrate(store: Any, snippets: list[dict[str, Any]]) -> dict[str, list[Hit]]:
    """Full passages per plan item for the chunk IDs kept in state (the state itself holds no document text)."""
    texts: dict[str, str] = {}
    for doc_id in dict.fromkeys(s["doc_id"] for s in snippets):
        for chunk in store.chunks(doc_id):
            texts[chunk.chunk_id] = chunk.text
    out: dict[str, list[Hit]] = {}
    for s in snippets:
        out.setdefault(s.get("plan_item_id", ""), []).append(
            Hit(doc_id=s["doc_id"], chunk_id=s["chunk_id"], chunk_index=s["chunk_index"], score=s["score"],
                title=s["title"], jurisdiction=s["jurisdiction"], status=s["status"], text=texts.get(s["chunk_id"], "")))
    return out


def about_item(d: Deficiency, item: PlanItem) -> bool:
    """Whether a deficiency says this plan item went unanswered: its subject is the item, or the item's whole
    jurisdiction is missing."""
    return d.subject == item.id or (d.deficiency_type == DeficiencyType.missing_jurisdiction
                                    and d.subject == item.jurisdiction)


def with_gaps(answer: Answer, plan: ResearchPlan | None, left: list[Deficiency]) -> Answer:
    """The answer saying plainly which plan items the corpus could not answer (coverage deficiencies left)."""
    if plan is None:
        return answer
    gaps = {g.plan_item_id: g for g in answer.gaps}
    for d in left:
        for item in plan.items:
            if about_item(d, item) and item.id not in gaps and d.origin != "analyst":
                gaps[item.id] = gap_for(item)
    return answer.model_copy(update={"gaps": tuple(gaps.values())})


def final_text(answer: str, left: list[Deficiency]) -> str:
    """The final answer with its residual deficiencies disclosed in a section of their own."""
    if not left:
        return answer
    lines = ["", "", "## Residual deficiencies (not resolved)"]
    for d in sorted(left, key=lambda x: -x.severity.rank):
        lines.append(f"- [{d.severity.value}] {d.deficiency_type.value} ({d.resolution_status.value}): {d.description}")
    return answer + "\n".join(lines)
