"""The Cycles page: the answer's claims diffed between cycles, and a single-cycle session in words."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.domain.records import EvaluationCycleRecord
from core.service import Workbench
from tests.ui.support import Q1, Q1_AS_OF, open_session
from ui.diffs import ADDED, CHANGED, REMOVED, ClaimChange, claim_diff, claims, cycle_claim_diff

CYCLES = "views/cycles.py"


def test_claims_are_sentences_headings_and_table_rows() -> None:
    answer = "# EU\nFirst claim. Second claim (art. 3).\n| a | b |\n\nThird? Yes."
    assert claims(answer) == ["# EU", "First claim.", "Second claim (art. 3).", "| a | b |", "Third?", "Yes."]


def test_the_claim_diff_marks_added_removed_and_changed() -> None:
    before = "# EU\nThe threshold is 25%. Owners are identified.\nThe rule applies to banks."
    after = "# EU\nThe threshold is 25% or more. Owners are identified.\nA new claim about Singapore agencies."
    assert claim_diff(before, after) == [
        ClaimChange(CHANGED, "The threshold is 25%.", "The threshold is 25% or more."),
        ClaimChange(REMOVED, "The rule applies to banks.", ""),
        ClaimChange(ADDED, "", "A new claim about Singapore agencies."),
    ]
    assert claim_diff(before, before) == []
    assert claim_diff("", "One.") == [ClaimChange(ADDED, "", "One.")]


def test_a_claim_keeps_its_citations_and_a_moved_claim_is_no_addition() -> None:
    assert claims("A claim. [eu-amlr-2024-1624] [us-cdd] Next one.") == [
        "A claim. [eu-amlr-2024-1624] [us-cdd]",
        "Next one.",
    ]
    before = "Sources: AMLR; AMLD4; AMLD5.\nFirst claim stays.\nMoved claim.\nLast claim stays."
    after = "First claim stays.\nMoved claim.\nLast claim stays.\nSources: AMLR; AMLD5; AMLD4."
    assert claim_diff(before, after) == [
        ClaimChange(CHANGED, "Sources: AMLR; AMLD4; AMLD5.", "Sources: AMLR; AMLD5; AMLD4.")
    ]
    assert claim_diff("Moved.\nStays.", "Stays.\nMoved.") == []


def test_the_cycle_diff_reads_the_answers_the_records_keep() -> None:
    records = [
        EvaluationCycleRecord(
            cycle_number=i,
            timestamp="2026-11-30T10:00:00+00:00",
            deficiencies_found=(),
            deficiencies_resolved=(),
            overall_score=0.5,
            answer=f"Line one. Figure {i}.",
        )
        for i in range(2)
    ]
    assert cycle_claim_diff(records, 0, 1) == [ClaimChange(CHANGED, "Figure 0.", "Figure 1.")]


def test_a_single_cycle_session_gets_a_sentence_not_empty_charts(app: AppTest, wb: Workbench) -> None:
    one = wb.start(Q1, as_of=Q1_AS_OF, max_cycles=0, approve="all")
    assert one.status == "completed" and len(one.evaluation_history) == 1
    open_session(app, one.thread_id, CYCLES)
    assert app.get("plotly_chart") == []
    assert "This session has one critiqued cycle (cycle 0)" in " ".join(str(m.value) for m in app.markdown)
    assert not app.selectbox and "is the same" not in " ".join(c.value for c in app.caption)
