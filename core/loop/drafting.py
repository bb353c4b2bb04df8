"""The nodes that build the answer: plan the research, retrieve per plan item, draft, and revise after the
approved corrections. A failing engine or store degrades the run with a note instead of crashing it."""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from core.domain.answer import Answer, claim_id
from core.domain.instructions import has_instructions
from core.domain.records import ResolutionStatus
from core.loop.deps import Deps, rehydrate, rendered, usage_metrics
from core.loop.state import WorkbenchState
from core.retrieval.plan_search import search_plan

log = logging.getLogger(__name__)


def plan(state: WorkbenchState, runtime: Runtime[Deps]) -> dict[str, Any]:
    """The research plan of the question (jurisdictions, entity types, items) before anything is retrieved."""
    deps = runtime.context
    try:
        result = deps.planner.plan(state["original_query"], deps.context(state["as_of"]))
    except Exception as exc:
        log.exception("planning failed")
        return {"degraded": getattr(exc, "component", "planner"), "cycle_notes": [f"planning failed: {exc}"]}
    return {
        "plan": result.plan,
        "metrics": usage_metrics(result.usage),
        "cycle_notes": list(result.notes),
        "model_calls": list(result.usage.calls),
    }


def retrieve(state: WorkbenchState, runtime: Runtime[Deps]) -> dict[str, Any]:
    """One query per plan item; only chunk IDs and their metadata go into the state."""
    deps = runtime.context
    try:
        found, calls = search_plan(deps.store, state["plan"], k=deps.settings.retrieval_k)
    except Exception as exc:
        log.exception("retrieval failed")
        return {"degraded": "retrieval", "cycle_notes": [f"retrieval failed: {exc}"]}
    snippets = [
        {
            "plan_item_id": item_id,
            "doc_id": h.doc_id,
            "chunk_id": h.chunk_id,
            "chunk_index": h.chunk_index,
            "score": round(h.score, 4),
            "jurisdiction": h.jurisdiction,
            "title": h.title,
            "status": h.status,
        }
        for item_id, hits in found.items()
        for h in hits
    ]
    return {
        "retrieved_doc_ids": list(dict.fromkeys(s["doc_id"] for s in snippets)),
        "retrieved_snippets": snippets,
        "metrics": {"retrievals": 1, "retrieval_queries": calls},
    }


def draft(state: WorkbenchState, runtime: Runtime[Deps]) -> dict[str, Any]:
    """The first answer, from the passages retrieved for the plan."""
    deps = runtime.context
    research = state["plan"]
    hits = rehydrate(deps.store, state.get("retrieved_snippets", []))
    try:
        result = deps.drafter.draft(research, hits, deps.context(state["as_of"]))
    except Exception as exc:
        log.exception("drafting failed")
        return {
            "degraded": getattr(exc, "component", "drafter"),
            "current_answer": "",
            "cycle_notes": [f"drafting failed: {exc}"],
        }
    answer, dropped = without_instructions(result.answer)
    return {
        "answer": answer,
        "current_answer": rendered(answer, research, result.citations),
        "citations": result.citations,
        "evaluation_cycle": 0,
        "metrics": usage_metrics(result.usage),
        "cycle_notes": [*result.notes, *dropped],
        "model_calls": list(result.usage.calls),
    }


def without_instructions(answer: Answer) -> tuple[Answer, list[str]]:
    """The answer without any claim whose text addresses a model or reader with instructions, and a note for each
    dropped: whatever an engine drafted, such text is never stated as what the law says."""
    notes: list[str] = []
    for code, claim in answer.claims():
        if has_instructions(claim.text):
            answer = answer.without(claim_id(code, claim))
            notes.append(f"dropped a claim quoting text that instructs a model: {claim.text[:80]}")
    return answer, notes


def without_struck(revised: Answer, before: Answer) -> Answer:
    """The revised answer keeping out (and listing) the claims the analyst struck from the answer before it."""
    for struck in before.struck:
        revised = revised.without(struck.id)
    return revised.model_copy(update={"struck": before.struck})


def revise(state: WorkbenchState, runtime: Runtime[Deps]) -> dict[str, Any]:
    """The answer after this cycle's approved corrections, with the evidence they retrieved; opens the next
    cycle (its notes go into the next record)."""
    deps = runtime.context
    corrected = ("approve", "edit", "add", "reopen")
    approved = {r.deficiency_id for r in state.get("pending_decisions", []) if r.action in corrected}
    addressed = [
        d
        for d in state.get("identified_deficiencies", [])
        if d.resolution_status == ResolutionStatus.addressed and d.id in approved
    ]
    cycle = state.get("evaluation_cycle", 0) + 1
    try:
        result = deps.drafter.revise(
            state["plan"],
            state.get("answer") or Answer(),
            addressed,
            state.get("evidence", []),
            deps.context(state["as_of"]),
        )
    except Exception as exc:
        log.exception("revision failed")
        return {
            "degraded": getattr(exc, "component", "drafter"),
            "evaluation_cycle": cycle,
            "cycle_notes": [f"revision failed: {exc}"],
        }
    answer, dropped = without_instructions(without_struck(result.answer, state.get("answer") or Answer()))
    return {
        "answer": answer,
        "current_answer": rendered(answer, state["plan"], result.citations),
        "citations": result.citations,
        "evaluation_cycle": cycle,
        "metrics": usage_metrics(result.usage),
        "cycle_notes": [*result.notes, *dropped],
        "model_calls": list(result.usage.calls),
    }
