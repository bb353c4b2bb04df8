"""The status on the pages: the outcome badge, the answer's markers, one error for one problem."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.service import RunResult, Workbench
from tests.ui.support import open_session

RESEARCH = "views/research.py"


def markdown(app: AppTest) -> str:
    return " ".join(str(m.value) for m in app.markdown)


def test_a_critical_residual_turns_the_badge_red(app: AppTest, wb: Workbench, q1_done: RunResult) -> None:
    assert q1_done.residual_deficiencies, "Q1 is expected to end with residual deficiencies"
    target = q1_done.residual_deficiencies[0]
    done = wb.annotate(q1_done.thread_id, target.id, editor="t", reason="test", severity="critical")
    open_session(app, done.thread_id, RESEARCH)
    badge = done.outcome.badge_markdown()
    assert badge.startswith(":red-badge[completed with ") and "critical" in badge
    assert badge in markdown(app)  # the page header
    assert badge in " ".join(str(m.value) for m in app.sidebar.markdown)


def test_the_finished_answer_marks_flagged_sentences(
    app: AppTest, q1_done: RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Q1's own residuals point at no sentence, so one is made to point at the answer's last line."""
    sentence = q1_done.current_answer.strip().splitlines()[-1].strip()
    flagged = q1_done.residual_deficiencies[0].model_copy(update={"affected_text": sentence})
    shown = q1_done.model_copy(update={"residual_deficiencies": [flagged, *q1_done.residual_deficiencies[1:]]})
    monkeypatch.setattr(Workbench, "show", lambda self, thread_id, **kw: shown)
    open_session(app, q1_done.thread_id, RESEARCH)
    assert markdown(app).count(f"⚠ \\[{flagged.id}\\]") == 1


def test_an_empty_question_says_so_once(app: AppTest) -> None:
    app.run()
    next(b for b in app.button if b.label == "Run").click().run()
    assert len(app.error) == 1 and "the question is empty" in app.error[0].value
    assert app.main.children[2].label == "The run did not start"  # the status box does not repeat the message
