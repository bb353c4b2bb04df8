"""The Inbox: the sessions awaiting review, newest first, each opening its review."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from core.service import RunResult, Workbench
from tests.ui.support import Q1, Q1_AS_OF

INBOX = "views/inbox.py"


def test_the_inbox_lists_paused_sessions_newest_first_and_opens_their_review(
    app: AppTest, wb: Workbench, q1_done: RunResult
) -> None:
    older = wb.start(Q1, as_of=Q1_AS_OF, approve="manual")
    time.sleep(1.1)  # creation times are kept to the second
    newer = wb.start(Q1, as_of=Q1_AS_OF, approve="manual")
    waiting = [s.thread_id for s in wb.sessions() if s.status == "awaiting_review"]
    app.run()
    app.switch_page(INBOX).run()
    assert not app.exception, app.exception
    buttons = [b for b in app.button if b.label == "Open review"]
    assert [b.key for b in buttons] == [f"inbox-{t}" for t in waiting]
    assert f"inbox-{q1_done.thread_id}" not in {b.key for b in buttons}
    order = [b.key for b in buttons]
    assert order.index(f"inbox-{newer.thread_id}") < order.index(f"inbox-{older.thread_id}")
    buttons[0].click().run()
    assert not app.exception, app.exception
    assert app.session_state["thread_id"] == waiting[0] and app.query_params["session"] == waiting[0]
    assert any(b.label == "Submit decisions" for b in app.button)
