"""Retrieval per plan item: one batched query per jurisdiction, filtered to that jurisdiction."""

from __future__ import annotations

from typing import Any

from core.domain.documents import DocStatus, Hit, SearchFilter
from core.domain.plan import ANY_JURISDICTION, Aspect, ResearchPlan

CITABLE = tuple(s.value for s in DocStatus if s.citable)
"""Declared statuses a plan item may cite: a document its own metadata calls erroneous or a mere proposal never
answers, so it takes no place among the passages retrieved."""


def search_plan(store: Any, plan: ResearchPlan, k: int) -> tuple[dict[str, list[Hit]], int]:
    """Hits per plan item id, and how many queries were issued (one batched retrieval step). Items the corpus cannot answer and the
    comparison (answered from the other items) retrieve nothing; an any-jurisdiction item is not filtered, and
    searches the documents the question names as well ("How long is QPIP paternity leave?" names no place, and
    other places' paternity leave would outrank the plan it names)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for item in plan.items:
        if not item.answerable or item.aspect == Aspect.comparison or not item.query.strip():
            continue
        if item.aspect == Aspect.verdict:
            for code in plan.answer_codes() or [ANY_JURISDICTION]:
                groups.setdefault(code, []).append((item.id, item.query))
            continue
        groups.setdefault(item.jurisdiction, []).append((item.id, item.query))
    found: dict[str, list[Hit]] = {}
    calls = 0
    for code, pairs in groups.items():
        flt = SearchFilter(jurisdictions=() if code == ANY_JURISDICTION else (code,), statuses=CITABLE)
        results = store.search_many([q for _, q in pairs], k=k, flt=flt)
        calls += len(pairs)
        if code == ANY_JURISDICTION and plan.named_doc_ids:
            named = SearchFilter(doc_ids=plan.named_doc_ids, statuses=CITABLE)
            own = store.search_many([q for _, q in pairs], k=k, flt=named)
            calls += len(pairs)
            results = [_merged(a, b) for a, b in zip(own, results)]
        for (item_id, _), hits in zip(pairs, results):
            found.setdefault(item_id, []).extend(hits)
    return found, calls


def _merged(first: list[Hit], then: list[Hit]) -> list[Hit]:
    """Both lists of hits, each passage once, in that order."""
    out: dict[str, Hit] = {}
    for h in (*first, *then):
        out.setdefault(h.chunk_id, h)
    return list(out.values())
