"""Deliberate review on the Research page: no preselected decision, Submit only once every card is decided,
"Approve all" after a confirmation, and a stale tab told that its review was answered elsewhere."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.service import RunResult, Workbench, claim_id
from tests.ui.support import open_session
from tests.ui.test_pages import click, decide_all, text


def button(app: AppTest, label: str) -> object:
    return next(b for b in app.button if b.label == label)


def test_no_card_is_preselected_and_submit_waits_for_every_decision(
    app: AppTest, wb: Workbench, q1_paused: RunResult
) -> None:
    tid = q1_paused.thread_id
    proposals = q1_paused.pending_review["proposals"]
    n = len(proposals)
    open_session(app, tid)
    assert [r.value for r in app.radio if r.label == "Decision"] == [None] * n
    assert button(app, "Submit decisions").disabled
    assert f"{n} of {n} cards undecided" in text(app.caption)

    app.radio(key=f"action-{tid}-0-{proposals[0]['id']}").set_value("approve").run()
    assert button(app, "Submit decisions").disabled
    assert f"{n - 1} of {n} cards undecided" in text(app.caption)
    app.text_input(key=f"note-{tid}-0-{proposals[0]['id']}").input("checked").run()  # Enter in a note
    assert wb.show(tid).status == "awaiting_review" and wb.show(tid).pending_review["cycle"] == 0

    decide_all(app)
    assert not button(app, "Submit decisions").disabled and f"All {n} cards decided." in text(app.caption)
    click(app, "Submit decisions")
    decisions = {d.deficiency_id: d for d in wb.show(tid).evaluation_history[1].decisions}
    assert decisions[proposals[0]["id"]].note == "checked"
    assert all(decisions[p["id"]].action in ("approve", "edit") for p in proposals)


def test_approve_all_needs_a_confirmation(app: AppTest, wb: Workbench, q1_paused: RunResult) -> None:
    tid = q1_paused.thread_id
    n = len(q1_paused.pending_review["proposals"])
    open_session(app, tid)
    click(app, "Approve all")
    assert wb.show(tid).pending_review["cycle"] == 0
    assert f"Approve all {n} proposed correction(s) as proposed?" in text(app.warning)
    click(app, "Cancel")
    assert "as proposed?" not in text(app.warning) and wb.show(tid).pending_review["cycle"] == 0

    click(app, "Approve all")
    click(app, f"Yes, approve all {n}")
    decisions = wb.show(tid).evaluation_history[1].decisions
    assert len(decisions) >= n and {d.action for d in decisions} == {"approve"}


def test_a_stale_tab_is_told_that_its_review_was_answered(app: AppTest, wb: Workbench, q1_paused: RunResult) -> None:
    tid = q1_paused.thread_id
    open_session(app, tid)
    decide_all(app, "reject")
    wb.resume(tid, {"cycle": 0, "decisions": {}, "stop": True})  # another tab stops the loop meanwhile
    click(app, "Submit decisions")
    assert "This review was already answered (in another tab?)" in text(app.warning)
    assert "Your decisions on it were not applied" in text(app.caption)
    done = wb.show(tid)
    assert done.status == "completed" and done.termination_reason == "stopped_by_analyst"


def test_a_review_answered_during_the_submit_says_so(
    app: AppTest, wb: Workbench, q1_paused: RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another tab answers the review between this tab's read and its resume: the refusal is said plainly."""
    tid = q1_paused.thread_id
    original = Workbench.resume

    def answered_elsewhere_first(self: Workbench, thread_id: str, decisions: object, **kw: object) -> RunResult:
        original(self, thread_id, {"cycle": 0, "decisions": {}, "stop": True})
        return original(self, thread_id, decisions, **kw)

    open_session(app, tid)
    decide_all(app)
    monkeypatch.setattr(Workbench, "resume", answered_elsewhere_first)
    click(app, "Submit decisions")
    assert "This review was already answered (in another tab?): reload to see where" in text(app.error)
    assert wb.show(tid).termination_reason == "stopped_by_analyst"


def test_claims_struck_in_the_review_leave_the_answer(app: AppTest, wb: Workbench, q1_paused: RunResult) -> None:
    code, claim = next((code, c) for code, c in q1_paused.answer.claims() if c.citations)
    cid = claim_id(code, claim)
    open_session(app, q1_paused.thread_id, "views/research.py")
    app.multiselect(key=f"review-strike-{q1_paused.thread_id}-0").set_value([cid]).run()
    app.text_input(key=f"review-strike-why-{q1_paused.thread_id}-0").input("out of scope").run()
    next(b for b in app.button if b.label == "Stop and finalize").click().run()
    assert not app.exception, app.exception
    done = wb.show(q1_paused.thread_id)
    assert done.status == "completed" and [(s.id, s.reason) for s in done.answer.struck] == [(cid, "out of scope")]
    assert claim.text not in done.current_answer
    assert next(a for a in done.human_acts if a.kind == "strike").actor == "analyst"
