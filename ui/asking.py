"""Asking a question: whether the same question was just asked (a second Run within a minute asks first, so a
double click or a form left filled in does not make a duplicate session). Pure: no Streamlit."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from core.service import SessionSummary

DUPLICATE_WINDOW_S = 60
"""A Run of a question asked this many seconds ago or less asks before it starts another session."""


def same_question(a: str, b: str) -> bool:
    """The same question, whatever the case and spacing."""
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def recent_duplicate(
    question: str, sessions: Iterable[SessionSummary], now: datetime, window_s: int = DUPLICATE_WINDOW_S
) -> SessionSummary | None:
    """The newest session that asked this question within the last `window_s` seconds, if any."""
    for s in sorted(sessions, key=lambda s: s.created_at, reverse=True):
        try:
            created = datetime.fromisoformat(s.created_at)
        except ValueError:
            continue
        if created.tzinfo is None or not same_question(s.question, question):
            continue
        if 0 <= (now - created).total_seconds() <= window_s:
            return s
    return None
