"""The three strategies on the same engine and a tiny self-built corpus (jurisdictions FD and SV)."""

from __future__ import annotations

from typing import Any

import pytest

from core.domain.records import DeficiencyType
from core.evaluation.scores import score
from core.evaluation.strategies import EvalQuestion, evaluate, run_loop, run_retry, run_single
from core.service import InputError
from tests.eval.corpus import QUESTION, ROW_KEYS, clean_corpus
from tests.loop.corpora import AS_OF

Q = EvalQuestion(
    label="F1",
    question=QUESTION,
    as_of=AS_OF,
    jurisdictions=("FD", "SV"),
    expected_facts=("more than 25%", "20% or more", "1 January 2015"),
    expected_deficiency_types=(DeficiencyType.outdated_source, DeficiencyType.missing_jurisdiction),
)


class SpyCritic:
    """Wraps the real critic and records what it was told it knew."""

    name = "spy"

    def __init__(self, inner: Any):
        self.inner = inner
        self.known: list[list[Any]] = []

    def critique(self, question, answer, known, ctx):
        self.known.append(list(known))
        return self.inner.critique(question, answer, known, ctx)


def test_single_pass_drafts_and_critiques_once_without_correcting(make_workbench) -> None:
    wb = make_workbench()
    out = run_single(wb, Q)
    assert (out.retrievals, out.critic_calls, out.cycles, out.resolved) == (1, 1, 0, 0)
    assert set(wb.store().ks) == {wb.settings.retrieval_k}  # one batched step: a query per plan item
    assert {s.jurisdiction for s in out.answer.sections} == {"FD", "SV"}  # codes the sample corpus lacks
    assert "fd-blog-wrong" not in out.answer.cited_doc_ids()  # an erroneous source is never drafted
    assert {d.deficiency_type for d in out.residual} >= {DeficiencyType.insufficient_specificity}
    assert out.residual == out.detected


def test_naive_retry_widens_retrieval_and_keeps_no_deficiency_state(make_workbench) -> None:
    wb = make_workbench(max_cycles=3)
    spy = SpyCritic(wb.critic)
    wb.critic = spy
    out = run_retry(wb, Q)
    k = wb.settings.retrieval_k
    assert sorted(set(wb.store().ks)) == [k, 2 * k, 3 * k, 4 * k]  # N = max cycles re-drafts, k grows each time
    assert (out.retrievals, out.critic_calls, out.cycles) == (4, 4, 3)
    assert all(known == [] for known in spy.known)  # the critic is never told what it found before
    assert out.stop_reason == "max_cycles_reached"
    assert out.residual  # what the last critique found
    assert {d.id for d in out.residual} <= {d.id for d in out.detected}


def test_naive_retry_stops_early_when_the_critic_finds_nothing(make_workbench) -> None:
    wb = make_workbench(docs=clean_corpus())
    q = EvalQuestion(
        label="S", question="What owner identification threshold applies to a remitter in Sylvania?", as_of=AS_OF
    )
    out = run_retry(wb, q)
    assert (out.retrievals, out.critic_calls, out.cycles) == (1, 1, 0)
    assert out.residual == [] and out.stop_reason == "no_deficiencies_found"


def test_retry_budget_follows_max_cycles_argument(make_workbench) -> None:
    wb = make_workbench()
    out = run_retry(wb, Q, max_cycles=0)
    assert (out.retrievals, out.cycles) == (1, 0)


def test_stateful_loop_resolves_what_single_pass_leaves(make_workbench) -> None:
    wb = make_workbench()
    single = score(Q, run_single(wb, Q), wb.settings.quality_threshold)
    loop = score(Q, run_loop(wb, Q), wb.settings.quality_threshold)
    assert loop.stop_reason and loop.cycles >= 1
    assert loop.resolved >= 1
    assert loop.residual_severity <= single.residual_severity / 2
    assert loop.critic_calls == loop.cycles + 1
    assert loop.retrievals >= 1  # the application date comes from the metadata: no correction retrieval
    assert "insufficient_specificity" in loop.detected_types
    assert "[fd-blog-wrong]" not in loop.answer and "applies only from 1 January 2028" in loop.answer
    # evaluation runs use the workbench's own persistence: nothing else is touched
    assert len(wb.sessions()) == 1


def test_score_fields(make_workbench) -> None:
    wb = make_workbench()
    row = score(Q, run_single(wb, Q), wb.settings.quality_threshold)
    assert row.facts_expected == 3 and row.facts_found + len(row.facts_missing) == 3
    assert row.fact_coverage == pytest.approx(row.facts_found / 3, abs=1e-4)
    assert row.detection_recall == 0.0  # neither expected type: no erroneous source drafted, FD and SV both answered
    assert row.expected_types_missed == ["outdated_source", "missing_jurisdiction"]
    assert (row.plan_items, row.plan_items_answered, row.duplicate_sentences, row.cut_sentences) == (7, 7, 0, 0)
    assert row.words_per_item and row.words_per_item <= 120 and not row.certified_incomplete
    assert row.residual_severity > 0 and row.residual_count == sum(row.residual_types.values())
    assert set(row.to_json()) >= ROW_KEYS
    assert "answer" not in row.to_json() and row.to_json(with_answer=True)["answer"] == row.answer


def test_a_yes_no_on_the_questions_own_facts_left_open_is_marked_among_its_residuals(make_workbench) -> None:
    # the rule engine leaves it to the analyst and discloses it: the bench shows which residual that is
    wb = make_workbench()
    on_facts = EvalQuestion(
        label="F2",
        question="Our remitter in Freedonia has 40 owners. Must it identify each owner?",
        as_of=AS_OF,
        jurisdictions=("FD",),
        expected_facts=("more than 25%",),
        complete_in_corpus=True,
    )
    row = score(on_facts, run_loop(wb, on_facts), wb.settings.quality_threshold)
    assert row.facts_verdict_left and row.false_residuals and row.verdicts == {}
    assert not score(Q, run_loop(wb, Q), wb.settings.quality_threshold).facts_verdict_left


def test_evaluate_summary_has_means_and_totals(make_workbench) -> None:
    wb = make_workbench()
    seen = []
    qs = [
        Q,
        EvalQuestion(label="F2", question="Which owner identification threshold applies in Sylvania?", as_of=AS_OF),
    ]
    report = evaluate(wb, qs, "single", on_result=seen.append)
    assert [r.label for r in seen] == ["F1", "F2"]
    s = report.summary()
    assert s["count"] == 2
    assert s["total"]["retrievals"] == 2 and s["mean"]["retrievals"] == 1
    assert s["mean"]["fact_coverage"] == report.rows[0].fact_coverage  # F2 has no expected facts: left out
    assert "fact_coverage" not in s["total"] and "detection_recall" not in s["total"]
    assert s["total"]["facts_expected"] == 3
    data = report.to_json()
    assert data["strategy"] == "single" and len(data["questions"]) == 2 and data["summary"] == s


def test_evaluate_rejects_unknown_strategy_and_bad_budget(make_workbench) -> None:
    wb = make_workbench()
    with pytest.raises(ValueError, match="unknown strategy"):
        evaluate(wb, [Q], "twice")
    with pytest.raises(ValueError, match="max cycles"):
        evaluate(wb, [Q], "retry", max_cycles=-1)


@pytest.mark.parametrize("strategy", [run_single, run_retry, run_loop])
def test_every_strategy_refuses_an_empty_corpus(make_workbench, strategy) -> None:
    wb = make_workbench(docs=[])
    with pytest.raises(InputError, match="corpus is empty"):
        strategy(wb, Q)
