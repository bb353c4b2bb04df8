"""Inbox: the sessions waiting for the analyst's review (the user's own when login is on), newest first."""

import streamlit as st

from core.domain.safe_markdown import md_escape
from core.service import SessionStatus
from ui import shared
from ui.outcome import outcome_markdown

wb = shared.workbench()
waiting = sorted(
    (s for s in wb.sessions(user_id=shared.user_id()) if s.status == SessionStatus.awaiting_review),
    key=lambda s: s.created_at,
    reverse=True,
)

st.title("Inbox")


def open_review(thread_id: str) -> None:
    """Open the session and show its review on the Research page (the URL carries `?session=`)."""
    shared.set_thread(thread_id)
    st.switch_page(shared.RESEARCH_PAGE, query_params={shared.QUERY_KEY: thread_id})


if not waiting:
    st.info("No session is waiting for your review.", icon=":material/inbox:")
    st.page_link(shared.RESEARCH_PAGE, label="Ask a question", icon=":material/travel_explore:")
else:
    st.caption(
        f"{len(waiting)} session{'s' * (len(waiting) != 1)} paused for your decision on proposed corrections, "
        "newest first."
    )
    for s in waiting:
        with st.container(border=True):
            text, action = st.columns([5, 1], vertical_alignment="center")
            text.markdown(f"**{md_escape(s.question)}**")
            text.markdown(outcome_markdown(s.outcome))
            text.caption(
                f"Started {s.created_at[:16].replace('T', ' ')} UTC · engine {md_escape(s.engine)} · session {s.thread_id}"
            )
            if action.button("Open review", key=f"inbox-{s.thread_id}", icon=":material/rate_review:", type="primary"):
                open_review(s.thread_id)
