"""Asking again: "New question" empties the form, and a second Run of the same question within a minute asks
before it makes another session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from streamlit.testing.v1 import AppTest

from core.service import SessionSummary, Workbench
from tests.ui.test_pages import click, text
from ui.asking import recent_duplicate, same_question

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
QUESTION = "What record-keeping period applies to CDD files in Singapore?"


def session(thread_id: str, question: str, seconds_ago: float) -> SessionSummary:
    at = (NOW - timedelta(seconds=seconds_ago)).isoformat()
    return SessionSummary(thread_id=thread_id, question=question, status="completed", created_at=at, updated_at=at)


def test_a_duplicate_is_the_same_question_asked_within_the_window() -> None:
    assert same_question(QUESTION, "  what RECORD-keeping period applies to CDD files in\nSingapore? ")
    sessions = [session("old", QUESTION, 300), session("new", QUESTION, 20), session("other", "Another?", 5)]
    assert recent_duplicate(QUESTION, sessions, NOW).thread_id == "new"
    assert recent_duplicate(QUESTION, [session("old", QUESTION, 61)], NOW) is None
    assert recent_duplicate("Another question", sessions, NOW) is None
    assert recent_duplicate(QUESTION, [session("x", QUESTION, 0).model_copy(update={"created_at": "?"})], NOW) is None


def test_a_second_run_asks_first_and_new_question_clears_the_form(app: AppTest, wb: Workbench) -> None:
    app.run()
    app.text_area[0].input(QUESTION)
    app.selectbox[0].set_value("none")  # draft and critique only: a short run
    click(app, "Run")
    first = app.session_state["thread_id"]
    assert first and app.text_area[0].value == ""  # the form is cleared once the session exists
    before = len(wb.sessions())

    app.text_area[0].input(QUESTION)
    click(app, "Run")
    assert "You asked this question less than 60 seconds ago" in text(app.warning) and first in text(app.warning)
    assert len(wb.sessions()) == before  # nothing started yet
    click(app, "Open the earlier session")
    assert app.session_state["thread_id"] == first and len(wb.sessions()) == before

    app.text_area[0].input(QUESTION)
    click(app, "Run")
    click(app, "Run again")
    assert len(wb.sessions()) == before + 1 and app.session_state["thread_id"] != first

    app.text_area[0].input("half-typed question")
    next(b for b in app.sidebar.button if b.label == "New question").click()
    app.run()
    assert app.session_state["thread_id"] is None and app.text_area[0].value == ""
