"""One approved correction: its retrieval, after the review interrupt, and the evidence sentences it found."""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from core.domain.corrections import CorrectionFilter
from core.domain.deficiencies import Event, apply
from core.domain.documents import DocStatus, Hit, SearchFilter
from core.domain.figures import figures
from core.domain.records import Deficiency, Evidence
from core.engines.text import overlap, sentences, term_set
from core.loop.deps import Deps

log = logging.getLogger(__name__)
EVIDENCE_SENTENCES = 5


def correct(task: dict[str, Any], runtime: Runtime[Deps]) -> dict[str, Any]:
    """Retrieve for one approved correction (a `Send` of the review); the deficiency becomes addressed. A
    correction without a query is fixed from the corpus metadata and needs no retrieval. A failed retrieval
    leaves it open, to be retried or disclosed."""
    deps = runtime.context
    unresolvable_after = deps.settings.unresolvable_after
    d: Deficiency = task["deficiency"]
    query: str = task["query"]
    if not query.strip():
        return {"identified_deficiencies": [apply(d, Event.approved_and_retrieved, unresolvable_after)]}
    wanted = CorrectionFilter.of(d.correction_filter)
    flt = SearchFilter(
        jurisdictions=wanted.jurisdictions,
        doc_ids=wanted.doc_ids,
        exclude_doc_ids=wanted.exclude_doc_ids,
        statuses=tuple(s.value for s in DocStatus if s.usable),
    )
    items = {i.id for i in task["plan"].items} if task.get("plan") else set()
    try:
        hits = deps.store.search(query, k=deps.settings.correction_k, flt=flt)
    except Exception as exc:
        log.exception("correction retrieval failed")
        return {
            "pending_queries": [query],
            "cycle_notes": [f"correction retrieval failed: {exc}"],
            "metrics": {"retrievals": 1},
        }
    evidence = [
        Evidence(
            deficiency_id=d.id,
            query=query,
            doc_id=h.doc_id,
            chunk_id=h.chunk_id,
            title=h.title,
            jurisdiction=h.jurisdiction,
            status=h.status,
            snippet=" ".join(picked),
            sentences=picked,
            score=round(h.score, 4),
            cycle=task["cycle"],
            plan_item_id=d.subject if d.subject in items else "",
        )
        for h in hits
        if (picked := evidence_sentences(h, query, wanted))
    ]
    addressed = apply(d, Event.approved_and_retrieved, unresolvable_after).model_copy(
        update={"evidence_doc_ids": tuple(dict.fromkeys([*d.evidence_doc_ids, *(h.doc_id for h in hits)]))}
    )
    return {
        "evidence": evidence,
        "identified_deficiencies": [addressed],
        "pending_queries": [query],
        "metrics": {"retrievals": 1},
    }


def evidence_sentences(hit: Hit, query: str, flt: CorrectionFilter) -> tuple[str, ...]:
    """Whole sentences of the passage that best serve the correction: those stating the wanted figure first."""
    unit, values = flt.unit, set(flt.values)
    wanted = term_set(query)

    def key(sentence: str) -> tuple[bool, float]:
        has = bool(unit) and any(f.unit == unit and (not values or f.value in values) for f in figures(sentence))
        return not has, -overlap(wanted, sentence)

    return tuple(sorted(sentences(hit.text), key=key)[:EVIDENCE_SENTENCES])
