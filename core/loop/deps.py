"""What the loop's steps share: their run-time dependencies (`Deps`, passed as LangGraph's runtime context), the
engine context, the answer's rendering and its disclosure of what is left.

The node functions live in core.loop, one module per job; nodes never import the UI. Side effects (retrieval)
happen only in `retrieve` and in `correct`, which runs strictly after the review interrupt.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from core.config import Settings
from core.domain.answer import RESIDUAL_HEADING, Answer, Claim, gap_for, render_markdown
from core.domain.documents import Hit
from core.domain.gazetteer import jurisdiction_name
from core.domain.plan import PlanItem, ResearchPlan
from core.domain.records import Citation, Deficiency, DeficiencyType
from core.domain.wording import words
from core.engines.base import Critic, Drafter, EngineContext, Planner, Usage
from core.loop.termination import TerminationPolicy


@dataclass(frozen=True)
class Deps:
    """What the nodes need besides the state: the graph's runtime context (`context_schema`), given to each run
    with the store of the session's collection, so one compiled graph serves every collection."""

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
        return EngineContext(
            catalog=store.catalog(),
            as_of=as_of,
            doc_text=lambda doc_id: "\n".join(c.text for c in chunks(doc_id)),
            passage=lambda chunk_id: getattr(_chunk(chunks, chunk_id), "text", ""),
            chunk=lambda chunk_id: _chunk(chunks, chunk_id),
        )


def _chunk(chunks: Callable[[str], list[Any]], chunk_id: str) -> Any:
    """One passage by its chunk id (`doc-id#index`), None when the corpus does not hold it."""
    doc_id, _, index = chunk_id.rpartition("#")
    if not doc_id or not index.isdigit():
        return None
    return next((c for c in chunks(doc_id) if c.chunk_index == int(index)), None)


def usage_metrics(usage: Usage) -> dict[str, float]:
    """Model usage as `metrics` counters (they add up over the session)."""
    return {
        "llm_calls": usage.llm_calls,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
    }


def names_of(plan: ResearchPlan | None) -> dict[str, str]:
    """Jurisdiction code -> the name the plan knows it by, for section headings; a wider jurisdiction that
    answers for a named place (a member state's union, a state's country) by its gazetteer name."""
    if plan is None:
        return {}
    return {**{c: jurisdiction_name(c) for c in plan.answer_codes()}, **{j.code: j.name for j in plan.jurisdictions}}


def rendered(answer: Answer, plan: ResearchPlan | None, citations: Iterable[Citation] = ()) -> str:
    """The Markdown of a typed answer (kept in the state for pages, exports and the audit record)."""
    return render_markdown(answer, plan, names_of(plan), source_names(citations))


def source_names(citations: Iterable[Citation]) -> dict[str, str]:
    """How each cited document is named under its section: title, citation and status at the as-of date."""
    out = {}
    for c in citations:
        status = words(c.status_at_as_of)
        out[c.doc_id] = f"{c.title}" + (f", {c.citation}" if c.citation else "") + f" ({status})"
    return out


def rehydrate(store: Any, snippets: list[dict[str, Any]]) -> dict[str, list[Hit]]:
    """Full passages per plan item for the chunk IDs kept in state (the state itself holds no document text)."""
    texts: dict[str, str] = {}
    for doc_id in dict.fromkeys(s["doc_id"] for s in snippets):
        for chunk in store.chunks(doc_id):
            texts[chunk.chunk_id] = chunk.text
    out: dict[str, list[Hit]] = {}
    for s in snippets:
        out.setdefault(s.get("plan_item_id", ""), []).append(
            Hit(
                doc_id=s["doc_id"],
                chunk_id=s["chunk_id"],
                chunk_index=s["chunk_index"],
                score=s["score"],
                title=s["title"],
                jurisdiction=s["jurisdiction"],
                status=s["status"],
                text=texts.get(s["chunk_id"], ""),
            )
        )
    return out


def about_item(d: Deficiency, item: PlanItem) -> bool:
    """Whether a deficiency says this plan item went unanswered: its subject is the item, or the item's whole
    jurisdiction is missing."""
    return d.subject == item.id or (
        d.deficiency_type == DeficiencyType.missing_jurisdiction and d.subject == item.jurisdiction
    )


def with_gaps(
    answer: Answer, plan: ResearchPlan | None, left: list[Deficiency], found: Mapping[str, Sequence[str]] | None = None
) -> Answer:
    """The answer saying plainly which plan items it leaves open (coverage deficiencies left): an item with
    passages retrieved for it (`found`: item id -> chunk ids) as not answered by the draft, naming them; any
    other as not answered by the corpus."""
    if plan is None:
        return answer
    gaps = {g.plan_item_id: g for g in answer.gaps}
    claims: dict[str, list[Claim]] = {}
    for _, c in answer.claims():
        for i in c.plan_item_ids:
            claims.setdefault(i, []).append(c)
    unverified = set(answer.unverified_doc_ids)
    for d in left:
        for item in plan.items:
            if not about_item(d, item) or item.id in gaps or d.origin == "analyst":
                continue
            if item.supporting and d.subject != item.id:
                continue  # a whole place missing is disclosed by the items the question asks
            stated = claims.get(item.id, [])
            if stated and not all(c.rests_on(unverified) for c in stated):
                continue  # a verified source answers it
            if stated:
                ids = [q for c in stated for q in c.doc_ids]
                gaps[item.id] = gap_for(item, plan, unverified=ids)
            else:
                gaps[item.id] = gap_for(
                    item,
                    plan,
                    (found or {}).get(item.id, ()) if item.answerable else (),
                    quoted=bool(answer.claims()) or answer.verdict is not None,
                )
    return answer.model_copy(update={"gaps": tuple(gaps.values())})


def retrieved_by_item(snippets: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Plan item id -> the chunk ids retrieved for it (from the state's retrieved snippets)."""
    out: dict[str, list[str]] = {}
    for s in snippets:
        out.setdefault(str(s.get("plan_item_id", "")), []).append(str(s["chunk_id"]))
    return out


def final_text(answer: str, left: list[Deficiency]) -> str:
    """The final answer with its residual deficiencies disclosed in a section of their own."""
    if not left:
        return answer
    lines = ["", "", f"## {RESIDUAL_HEADING}"]
    for d in sorted(left, key=lambda x: -x.severity.rank):
        kind, status = words(d.deficiency_type.value), words(d.resolution_status.value)
        lines.append(f"- [{d.severity.value}] {kind} ({status}): {d.description}")
    return answer + "\n".join(lines)
