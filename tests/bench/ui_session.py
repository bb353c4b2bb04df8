"""The UI benchmark's session (tests/bench/ui.py): 10 cycles and 40 deficiencies written with the real checkpointer,
finished or paused for review."""

from __future__ import annotations

from datetime import date
from typing import Any

from core.domain.records import (
    Citation,
    DecisionRecord,
    Deficiency,
    DeficiencyType,
    EvaluationCycleRecord,
    ResolutionStatus,
    Severity,
)
from core.service import SESSIONS_NS, Workbench

CYCLES = 10
DEFICIENCIES = 40
AS_OF = date(2026, 11, 30)
TYPES = list(DeficiencyType)
SEVERITY_CYCLE = [Severity.medium, Severity.high, Severity.low, Severity.critical, Severity.medium]
FINISHED_STATUSES = (
    [ResolutionStatus.resolved] * 24
    + [ResolutionStatus.unresolvable] * 6
    + [ResolutionStatus.dismissed] * 4
    + [ResolutionStatus.open] * 6
)
PAUSED_STATUSES = (
    [ResolutionStatus.resolved] * 20
    + [ResolutionStatus.unresolvable] * 4
    + [ResolutionStatus.dismissed] * 4
    + [ResolutionStatus.open] * 12
)


def deficiencies(statuses: list[ResolutionStatus]) -> list[Deficiency]:
    """40 deficiencies over the six types, with stable IDs, mixed severities and statuses."""
    return [
        Deficiency(
            deficiency_type=TYPES[i % 6],
            subject=f"XY:threshold_{i}",
            severity=SEVERITY_CYCLE[i % 5],
            description=f"The answer states threshold {i} without the figure its cited source sets; "
            f"the source gives {10 + i}% for entity type {i % 7}.",
            suggested_correction_query=f"threshold {i} beneficial ownership percentage entity type {i % 7}",
            affected_section="EU" if i % 2 else "US",
            identified_at_cycle=i % CYCLES,
            resolution_status=status,
            resolution_attempt_count=i % 3,
            analyst_note="out of scope" if status == ResolutionStatus.dismissed else "",
        )
        for i, status in enumerate(statuses)
    ]


def answer(cycle: int) -> str:
    """A ~3 KB answer that gains a sentence per cycle."""
    eu = [
        f"Under regulation {n}, institutions apply CDD above EUR {1000 * n:,}. [eu-amlr-2024-1624]"
        for n in range(1, 12)
    ]
    us = [
        f"Rule {n} requires identification of owners of {25 - n}% or more. [us-fincen-cdd-2016]" for n in range(1, 12)
    ]
    extra = [
        f"Correction {c}: the figure in force on 30 November 2026 is {20 + c}%. [eu-amld4-2015-849]"
        for c in range(cycle)
    ]
    return "\n".join(["## EU", *eu, *extra, "", "## US", *us])


def history(items: list[Deficiency]) -> list[EvaluationCycleRecord]:
    """Ten sealed audit records whose counts move towards the final statuses."""
    records: list[EvaluationCycleRecord] = []
    prev = ""
    for c in range(CYCLES):
        found = tuple(d.id for d in items[: DEFICIENCIES - 3 * c])
        resolved = tuple(d.id for d in items[3 * c : 3 * c + 3]) if c else ()
        status_counts = {
            "open": max(DEFICIENCIES - 4 * c, 6),
            "resolved": min(3 * c, 24),
            "unresolvable": min(c, 6),
            "dismissed": min(c, 4),
        }
        type_counts = {t.value: sum(1 for d in items if d.deficiency_type == t) for t in TYPES}
        decisions = (
            tuple(DecisionRecord(deficiency_id=d.id, action="approve", decided_by="analyst") for d in items[c : c + 4])
            if c
            else ()
        )
        record = EvaluationCycleRecord(
            cycle_number=c,
            timestamp=f"2026-11-30T10:{c:02d}:00+00:00",
            deficiencies_found=found,
            deficiencies_resolved=resolved,
            overall_score=round(0.4 + 0.05 * c, 2),
            retrieval_queries_issued=tuple(d.suggested_correction_query for d in items[c : c + 4]) if c else (),
            decisions=decisions,
            status_counts=status_counts,
            type_counts=type_counts,
            answer=answer(c),
        ).sealed(prev)
        prev = record.record_hash
        records.append(record)
    return records


def write_session(wb: Workbench, thread_id: str, paused: bool) -> None:
    """Store the session through the graph's checkpointer (and the session list), finished or paused for review."""
    items = deficiencies(PAUSED_STATUSES if paused else FINISHED_STATUSES)
    catalog = wb.store().catalog()
    citations = [
        Citation(
            doc_id=d.id,
            title=d.title,
            jurisdiction=d.jurisdiction,
            declared_status=d.status.value,
            status_at_as_of=catalog.status_at(d.id, AS_OF).value,
            effective=d.effective,
            citation=d.citation,
        )
        for d in catalog.all()[:8]
    ]
    residual = [d for d in items if d.resolution_status != ResolutionStatus.resolved]
    records = history(items)
    values: dict[str, Any] = {
        "original_query": "Compare CDD thresholds for remittance businesses in the EU and the US today.",
        "as_of": AS_OF,
        "session_id": thread_id,
        "user_id": "local",
        "approval_policy": "manual",
        "engine": "offline",
        "max_evaluation_cycles": CYCLES,
        "evaluation_cycle": CYCLES - 1,
        "identified_deficiencies": items,
        "evaluation_history": records,
        "current_answer": answer(CYCLES - 1),
        "citations": citations,
        "last_evaluation_score": records[-1].overall_score,
        "quality_score": records[-1].overall_score,
        "plateau_streak": 0,
        "messages": [],
    }
    if not paused:
        values.update(
            final_answer=answer(CYCLES - 1),
            residual_deficiencies=residual,
            evaluation_termination_reason="max_cycles_reached",
        )
    config = {"configurable": {"thread_id": thread_id}}
    graph = wb.graph()
    wb.persistence.store.put(
        SESSIONS_NS,
        thread_id,
        {
            "question": values["original_query"],
            "status": "awaiting_review" if paused else "completed",
            "created_at": "2026-11-30T10:00:00+00:00",
            "updated_at": "2026-11-30T10:10:00+00:00",
            "user_id": "local",
            "engine": "offline",
            "collection": wb.settings.collection,
            "as_of": AS_OF.isoformat(),
            "elapsed_s": 1.0,
            "quality_score": values["quality_score"],
            "termination_reason": None if paused else "max_cycles_reached",
        },
        index=False,
    )
    graph.update_state(config, values, as_node="critique" if paused else "finalize")
    if paused:
        graph.invoke(None, config, context=wb.deps())
    status = wb.show(thread_id).status
    assert status == ("awaiting_review" if paused else "completed"), status
