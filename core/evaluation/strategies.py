"""Does the loop help? Three answering strategies on the same engine and corpus, and their scores (questions files:
core.evaluation.questions).

Strategies (all use the workbench's drafter, critic, store and settings):

- `single`: retrieve (k = WORKBENCH_RETRIEVAL_K), draft, one critique; nothing is corrected.
- `retry`:  naive retry without deficiency state. Draft, critique; while the critic finds anything and the
  budget (N = max cycles) is not spent, retrieve again with a wider k (k, 2k, 3k, ...) and re-draft from
  scratch. The critic is never told what it found before. Residual = what the last critique found.
- `loop`:   the stateful loop (`Workbench.start` with `approve="all"`).

Per question the run is scored by `core.evaluation.facts`: fact coverage of the answer (without the residual
disclosure), residual count and summed severity weights, deficiencies resolved, detection recall of the
expected deficiency types among all types detected during the run, retrieval and critic calls, cycles
(corrections or re-drafts after the first draft) and wall time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from core.domain.answer import Answer
from core.domain.limits import MAX_CYCLES
from core.domain.outcome import SessionStatus
from core.domain.plan import ResearchPlan
from core.domain.records import Citation, Deficiency, ResolutionStatus
from core.engines.base import EngineContext
from core.evaluation.facts import fact_label
from core.evaluation.questions import EvalQuestion
from core.evaluation.scores import EvalReport, QuestionScore, RunOutcome, score
from core.loop.deps import Deps, about_item
from core.retrieval.plan_search import search_plan

STRATEGY_NAMES: tuple[str, ...] = ("loop", "single", "retry")


def _context(store: Any, as_of: date) -> EngineContext:
    """The same engine context the loop's nodes build (core.loop.deps.Deps.context)."""
    return Deps.context_of(store, as_of)


def _prepare(wb: Any, q: EvalQuestion, collection: str | None) -> tuple[str, date, Any]:
    from core.domain.inputs import InputError, validate_as_of, validate_question

    text = validate_question(q.question, wb.settings.max_query_chars)
    day = validate_as_of(q.as_of)
    store = wb.store(collection)
    if store.count() == 0:
        raise InputError("the corpus is empty: ingest documents first (python -m core ingest PATH or the Corpus page)")
    return text, day, store


def run_single(wb: Any, q: EvalQuestion, *, collection: str | None = None, max_cycles: int | None = None) -> RunOutcome:
    """Single pass: plan, retrieve per item, draft, one critique; nothing is corrected."""
    started = time.perf_counter()
    text, day, store = _prepare(wb, q, collection)
    ctx = _context(store, day)
    plan = wb.planner.plan(text, ctx).plan
    hits, _ = search_plan(store, plan, wb.settings.retrieval_k)
    draft = wb.drafter.draft(plan, hits, ctx)
    critique = wb.critic.critique(plan, draft.answer, [], ctx)
    found = list(critique.deficiencies)
    return RunOutcome(
        strategy="single",
        answer=draft.answer,
        plan=plan,
        citations=draft.citations,
        residual=found,
        detected=found,
        resolved=0,
        retrievals=1,
        critic_calls=1,
        cycles=0,
        wall_s=time.perf_counter() - started,
        stop_reason="single_pass",
        score=critique.held_score(plan, wb.settings.quality_threshold),
        answered=len(critique.answered_items),
    )


def run_retry(wb: Any, q: EvalQuestion, *, collection: str | None = None, max_cycles: int | None = None) -> RunOutcome:
    """Naive retry: re-draft from a wider retrieval up to N times, with no memory of what was wrong."""
    started = time.perf_counter()
    text, day, store = _prepare(wb, q, collection)
    budget = wb.settings.max_cycles if max_cycles is None else max_cycles
    base_k = wb.settings.retrieval_k
    ctx = _context(store, day)
    plan = wb.planner.plan(text, ctx).plan
    seen: dict[str, Deficiency] = {}
    answer, found, attempt = Answer(), [], 0
    citations: list[Citation] = []
    retrievals = critic_calls = 0
    score, answered = 0.0, 0
    stop = "max_cycles_reached"
    for attempt in range(budget + 1):
        hits, _ = search_plan(store, plan, base_k * (attempt + 1))
        retrievals += 1
        drafted = wb.drafter.draft(plan, hits, ctx)
        answer, citations = drafted.answer, drafted.citations
        critique = wb.critic.critique(plan, answer, [], ctx)
        found, answered = list(critique.deficiencies), len(critique.answered_items)
        score = critique.held_score(plan, wb.settings.quality_threshold)
        critic_calls += 1
        for d in found:
            seen.setdefault(d.id, d)
        if not found:
            stop = "no_deficiencies_found"
            break
    last = {d.id for d in found}
    return RunOutcome(
        strategy="retry",
        answer=answer,
        plan=plan,
        citations=citations,
        residual=found,
        detected=list(seen.values()),
        resolved=sum(1 for did in seen if did not in last),
        retrievals=retrievals,
        critic_calls=critic_calls,
        cycles=attempt,
        wall_s=time.perf_counter() - started,
        stop_reason=stop,
        score=score,
        answered=answered,
    )


def run_loop(wb: Any, q: EvalQuestion, *, collection: str | None = None, max_cycles: int | None = None) -> RunOutcome:
    """The stateful loop with every proposed correction approved."""
    started = time.perf_counter()
    result = wb.start(q.question, as_of=q.as_of, max_cycles=max_cycles, approve="all", collection=collection)
    wall = time.perf_counter() - started
    if result.status != SessionStatus.completed:
        raise RuntimeError(f"the loop did not finish for {q.label} (status {result.status})")
    identified = list(result.identified_deficiencies)
    last = result.evaluation_history[-1] if result.evaluation_history else None
    answered = len(result.plan.items) - sum(1 for d in result.residual_deficiencies if _is_gap(d, result.plan))
    return RunOutcome(
        strategy="loop",
        answer=result.answer or Answer(),
        plan=result.plan,
        citations=list(result.citations),
        score=result.quality_score or 0.0,
        answered=answered if last else 0,
        residual=list(result.residual_deficiencies),
        detected=identified,
        resolved=sum(1 for d in identified if d.resolution_status == ResolutionStatus.resolved),
        retrievals=int(result.metrics.get("retrievals", 0)),
        critic_calls=int(result.metrics.get("critic_calls", 0)),
        cycles=int(result.evaluation_cycle),
        wall_s=wall,
        stop_reason=result.termination_reason or "",
    )


def _is_gap(d: Deficiency, plan: ResearchPlan | None) -> bool:
    """Whether a deficiency says a plan item (or a whole jurisdiction's items) went unanswered."""
    if plan is None:
        return False
    return any(about_item(d, item) for item in plan.items)


STRATEGIES: dict[str, Callable[..., RunOutcome]] = {"loop": run_loop, "single": run_single, "retry": run_retry}


def evaluate(
    wb: Any,
    questions: Sequence[EvalQuestion],
    strategy: str,
    *,
    collection: str | None = None,
    max_cycles: int | None = None,
    on_result: Callable[[QuestionScore], None] | None = None,
) -> EvalReport:
    """Run one strategy over every question on the workbench's engine and corpus, and score each."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}: use {', '.join(STRATEGY_NAMES)}")
    if max_cycles is not None and not 0 <= max_cycles <= MAX_CYCLES:
        raise ValueError(f"max cycles must be between 0 and {MAX_CYCLES}, not {max_cycles}")
    run = STRATEGIES[strategy]
    rows = []
    for q in questions:
        row = score(q, run(wb, q, collection=collection, max_cycles=max_cycles), wb.settings.quality_threshold)
        rows.append(row)
        if on_result is not None:
            on_result(row)
    return EvalReport(strategy=strategy, rows=rows)


__all__ = [
    "STRATEGIES",
    "STRATEGY_NAMES",
    "EvalQuestion",
    "evaluate",
    "fact_label",
    "run_loop",
    "run_retry",
    "run_single",
]
