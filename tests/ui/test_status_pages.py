"""The status on the pages: the outcome badge, the answer's markers, one error for one problem."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from core.service import RunResult, Workbench
from tests.ui.support import open_session

RESEARCH = "views/research.py"


def markdown(app: AppTest) -> str:
    return " ".join(str(m.value) for m in app.markdown)


def test_a_critical_residual_turns_the_badge_red(app: AppTest, wb: Workbench, q1_residual: RunResult) -> None:
    target = q1_residual.residual_deficiencies[0]
    done = wb.annotate(q1_residual.thread_id, target.id, editor="t", reason="test", severity="critical")
    open_session(app, done.thread_id, RESEARCH)
    badge = done.outcome.badge_markdown()
    assert badge.startswith(":red-badge[completed with ") and "critical" in badge
    assert badge in markdown(app)  # the page header
    assert badge in " ".join(str(m.value) for m in app.sidebar.markdown)


def test_the_finished_answer_marks_flagged_sentences(
    app: AppTest, q1_residual: RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The analyst's residual points at no sentence, so it is made to point at the answer's last line."""
    sentence = q1_residual.current_answer.strip().splitlines()[-1].strip()
    flagged = q1_residual.residual_deficiencies[0].model_copy(update={"affected_text": sentence})
    shown = q1_residual.model_copy(update={"residual_deficiencies": [flagged]})
    monkeypatch.setattr(Workbench, "show", lambda self, thread_id, **kw: shown)
    open_session(app, q1_residual.thread_id, RESEARCH)
    assert markdown(app).count(f"⚠ \\[{flagged.id}\\]") == 1


def test_an_empty_question_says_so_once(app: AppTest) -> None:
    app.run()
    next(b for b in app.button if b.label == "Run").click().run()
    assert len(app.error) == 1 and "the question is empty" in app.error[0].value
    assert app.main.children[2].label == "The run did not start"  # the status box does not repeat the message


PAGES = ("views/research.py", "views/inbox.py", "views/sessions.py", "views/cycles.py", "views/export.py")
COUNTS_RE = re.compile(r"\*\*Deficiencies:\*\* ([^\n]*)")


def page_text(app: AppTest) -> str:
    """Everything the page wrote as Markdown or in an alert box."""
    parts = [*app.markdown, *app.info, *app.success, *app.warning, *app.error]
    return "\n".join(str(p.value) for p in parts)


def shown_outcomes(app: AppTest, thread_id: str, pages: tuple[str, ...]) -> dict[str, tuple[list[str], str]]:
    """Per page: the counts lines it shows and its text."""
    out = {}
    for page in pages:
        open_session(app, thread_id, page)
        text = page_text(app)
        out[page] = ([line.strip() for line in COUNTS_RE.findall(text)], text)
    return out


def test_every_page_shows_the_same_outcome_for_a_paused_session(
    app: AppTest, wb: Workbench, q1_paused: RunResult
) -> None:
    outcome = wb.show(q1_paused.thread_id).outcome
    for page, (counts, text) in shown_outcomes(app, q1_paused.thread_id, PAGES).items():
        if page == "views/inbox.py":  # every paused session of the data dir is listed
            assert outcome.counts.line() in counts, page
        else:
            assert counts == [outcome.counts.line()], page
        assert outcome.badge_markdown() in text and outcome.headline in text, page


def test_every_page_shows_the_same_outcome_for_a_finished_session(
    app: AppTest, wb: Workbench, q1_residual: RunResult
) -> None:
    outcome = wb.show(q1_residual.thread_id).outcome
    assert outcome.counts.residual == len(q1_residual.residual_deficiencies) == 1
    pages = tuple(p for p in PAGES if p != "views/inbox.py")  # the inbox lists paused sessions only
    for page, (counts, text) in shown_outcomes(app, q1_residual.thread_id, pages).items():
        assert counts == [outcome.counts.line()], page
        assert outcome.badge_markdown() in text and outcome.headline in text and outcome.reason in text, page
    research = shown_outcomes(app, q1_residual.thread_id, ("views/research.py",))["views/research.py"][1]
    assert f"Residual deficiencies: {outcome.counts.residual}." in research
