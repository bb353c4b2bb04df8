"""Sessions: every research session, to reopen, branch from a past cycle, or delete."""

import streamlit as st

from core.domain.safe_markdown import md_escape
from core.service import InputError, SessionBusyError, SessionNotFoundError
from ui import shared
from ui.frames import session_frame
from ui.outcome import outcome_markdown
from ui.tables import WRAP_ROW_HEIGHT, session_choice

wb = shared.workbench()
sessions = wb.sessions(user_id=shared.user_id())

st.title("Sessions")

if not sessions:
    st.info("No sessions yet.")
    st.page_link(shared.RESEARCH_PAGE, label="Ask a question", icon=":material/travel_explore:")
else:
    st.dataframe(
        session_frame(sessions),
        hide_index=True,
        row_height=WRAP_ROW_HEIGHT,
        column_config={
            "question": st.column_config.TextColumn(width="large"),
            "termination": st.column_config.TextColumn(width="large"),
            "score": st.column_config.NumberColumn(format="%.2f"),
            "branched from": st.column_config.TextColumn(
                width="medium", help="A branch names the session and the cycle it was branched from"
            ),
        },
    )
    by_id = {s.thread_id: s for s in sessions}
    current_summary = by_id.get(shared.current_thread() or "")
    if current_summary is not None:
        st.markdown(f"**Open session {current_summary.thread_id}:** " + outcome_markdown(current_summary.outcome))
    ids = list(by_id)
    current = shared.current_thread()

    def choice(thread_id: str) -> str:
        return session_choice(by_id[thread_id], by_id[thread_id].outcome.badge)

    chosen = st.selectbox("Session", ids, index=ids.index(current) if current in by_id else 0, format_func=choice)

    open_col, branch_col, delete_col = st.columns(3, border=True)
    with open_col:
        st.markdown("**Open**")
        st.caption("Continue reviewing or read the answer on the Research page.")
        if st.button("Open session", type="primary", icon=":material/folder_open:"):
            shared.set_thread(chosen)
            st.switch_page(shared.RESEARCH_PAGE, query_params={shared.QUERY_KEY: chosen})

    with branch_col:
        st.markdown("**Branch from a past cycle**")
        try:
            cycles = [r.cycle_number for r in shared.read_session(wb, chosen, shared.user_id()).evaluation_history]
        except SessionNotFoundError:
            cycles = []
        if cycles:
            cycle = st.selectbox(
                "Cycle",
                cycles,
                index=len(cycles) - 1,
                help="A new session starts from the state right after this cycle's critique; "
                "this one is left as it is.",
            )
            if st.button(f"Branch from cycle {cycle}", icon=":material/call_split:"):
                try:
                    new_id = wb.branch(chosen, cycle, user_id=shared.user_id())
                except (InputError, SessionBusyError) as exc:
                    st.error(md_escape(str(exc)))
                else:
                    shared.forget_reads()
                    shared.set_thread(new_id)
                    shared.flash(f"Branched session {chosen} at cycle {cycle} into a new session {new_id}.")
                    st.switch_page(shared.RESEARCH_PAGE, query_params={shared.QUERY_KEY: new_id})
        else:
            st.caption("This session has no critiqued cycle to branch from.")

    with delete_col:
        st.markdown("**Delete**")
        st.caption("Removes the session's checkpoints and audit trail for good.")
        if st.session_state.get("confirm-delete") != chosen:
            st.button(
                "Delete…",
                icon=":material/delete:",
                on_click=st.session_state.__setitem__,
                args=("confirm-delete", chosen),
            )
        else:
            st.warning("Delete this session permanently?")
            yes_col, no_col = st.columns(2)
            if yes_col.button("Delete", type="primary", icon=":material/delete_forever:"):
                st.session_state.pop("confirm-delete", None)
                try:
                    wb.delete(chosen, user_id=shared.user_id())
                except (SessionBusyError, SessionNotFoundError) as exc:
                    st.error(md_escape(str(exc)))
                else:
                    shared.forget_reads()
                    if current == chosen:
                        shared.set_thread(None)
                    shared.flash(f"Deleted session {chosen}.")
                    st.rerun()
            no_col.button("Cancel", on_click=st.session_state.pop, args=("confirm-delete", None))
