"""The graph's state: the session's input schema and the TypedDict state with its reducers (the types the
checkpoint serializer may revive are listed in core.persistence.checkpoints)."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Annotated, Any

from typing_extensions import TypedDict

from core.domain.answer import Answer
from core.domain.plan import ResearchPlan
from core.domain.records import (
    Citation,
    DecisionRecord,
    Deficiency,
    EvaluationCycleRecord,
    Evidence,
    HumanActRecord,
    ModelCall,
)


def merge_deficiencies(
    left: list[Deficiency] | None, right: Iterable[Deficiency | Mapping[str, Any]] | None
) -> list[Deficiency]:
    """Reducer: merge by ID, the right side replacing; accepts models or dicts; never mutates its inputs."""
    merged: dict[str, Deficiency] = {}
    for item in [*(left or []), *(right or [])]:
        d = item if isinstance(item, Deficiency) else Deficiency.model_validate(item)
        merged[d.id] = d
    return list(merged.values())


def append_records(
    left: list[EvaluationCycleRecord] | None,
    right: Iterable[EvaluationCycleRecord | Mapping[str, Any]] | None,
) -> list[EvaluationCycleRecord]:
    """Reducer: append-only; a record is never replaced or removed."""
    out = list(left or [])
    for item in right or []:
        out.append(item if isinstance(item, EvaluationCycleRecord) else EvaluationCycleRecord.model_validate(item))
    return out


def append_acts(
    left: list[HumanActRecord] | None, right: Iterable[HumanActRecord | Mapping[str, Any]] | None
) -> list[HumanActRecord]:
    """Reducer: append-only, like the cycle records it is chained with."""
    out = list(left or [])
    for item in right or []:
        out.append(item if isinstance(item, HumanActRecord) else HumanActRecord.model_validate(item))
    return out


def add_metrics(left: dict[str, float] | None, right: Mapping[str, float] | None) -> dict[str, float]:
    """Reducer: counters and seconds add up per key."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = round(out.get(key, 0) + value, 6)
    return out


def accumulate(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Reducer for per-cycle scratch lists written by parallel tasks: appends; `None` on the right clears."""
    if right is None:
        return []
    return list(left or []) + list(right)


class SessionInput(TypedDict):
    """What a session starts from (the graph's input schema): every other field of the state starts empty inside
    the graph."""

    original_query: str
    as_of: date
    session_id: str
    user_id: str
    approval_policy: str
    engine: str
    max_evaluation_cycles: int


class WorkbenchState(TypedDict, total=False):
    """The graph state. Holds document IDs and short snippets, never whole documents. `messages` is the analysts'
    annotation log; `human_acts` holds the review decisions, board edits, added rows and annotations, hash-chained
    with `evaluation_history` (core.domain.audit); what the engines note about a cycle collects in `cycle_notes`, and
    their model calls in `model_calls`, until that cycle's record is sealed."""

    original_query: str
    as_of: date
    session_id: str
    user_id: str
    messages: Annotated[list[dict[str, Any]], operator.add]
    approval_policy: str
    engine: str
    retrieved_doc_ids: list[str]
    retrieved_snippets: list[dict[str, Any]]
    plan: ResearchPlan
    answer: Answer
    current_answer: str
    citations: list[Citation]
    evaluation_cycle: int
    max_evaluation_cycles: int
    identified_deficiencies: Annotated[list[Deficiency], merge_deficiencies]
    evaluation_history: Annotated[list[EvaluationCycleRecord], append_records]
    human_acts: Annotated[list[HumanActRecord], append_acts]
    plateau_streak: int
    last_evaluation_score: float | None
    evaluation_termination_reason: str | None
    pending_decisions: Annotated[list[DecisionRecord], accumulate]
    pending_queries: Annotated[list[str], accumulate]
    cycle_notes: Annotated[list[str], accumulate]
    model_calls: Annotated[list[ModelCall], accumulate]
    evidence: Annotated[list[Evidence], accumulate]
    metrics: Annotated[dict[str, float], add_metrics]
    degraded: str | None
    final_answer: str
    quality_score: float
    residual_deficiencies: list[Deficiency]
