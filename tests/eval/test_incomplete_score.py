"""An answer that leaves an asked plan item unanswered never meets the quality threshold, however small the item it
misses is: in the loop, in a single pass and in a naive retry."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from core.domain.quality import held_short
from core.evaluation.strategies import EvalQuestion, run_retry, run_single
from tests.eval.corpus import QUESTION
from tests.loop.corpora import AS_OF


def test_an_incomplete_answer_scores_below_the_threshold() -> None:
    assert held_short(0.95 * 11 / 12, (11, 12), 0.85) == pytest.approx(0.85 * 11 / 12, abs=1e-4)
    assert held_short(0.6, (11, 12), 0.85) == 0.6  # a lower score stands
    assert held_short(0.95, (12, 12), 0.85) == 0.95  # a complete answer keeps its score
    assert held_short(0.95, (0, 0), 0.85) == 0.95  # no plan: nothing to hold it to


class OneShortCritic:
    """The real critic, but reporting one asked item fewer answered and a score that would meet the threshold."""

    name = "one-short"

    def __init__(self, inner: Any):
        self.inner = inner

    def critique(self, plan, answer, known, ctx):
        result = self.inner.critique(plan, answer, known, ctx)
        asked = [i.id for i in plan.items if not i.supporting]
        return replace(result, score=0.97, answered_items=tuple(asked[1:]))


def test_no_strategy_reports_an_incomplete_answer_at_the_threshold(make_workbench) -> None:
    wb = make_workbench()
    wb.critic = OneShortCritic(wb.critic)
    threshold = wb.settings.quality_threshold
    q = EvalQuestion(label="F1", question=QUESTION, as_of=AS_OF, jurisdictions=("FD", "SV"))
    assert run_single(wb, q).score < threshold
    assert run_retry(wb, q, max_cycles=0).score < threshold
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")
    assert r.quality_score is not None and r.quality_score < threshold
    assert r.termination_reason != "quality_threshold_met"
