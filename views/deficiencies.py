"""Deficiencies: every problem the critics found, editable while the loop waits, annotated after it finishes."""

import streamlit as st

from core.domain.safe_markdown import md_escape
from core.service import InputError, SessionStatus
from ui import acts, shared
from ui.board import (
    DECISIONS,
    FINISHED_ORDER,
    PAUSED_ORDER,
    BoardChanges,
    annotation_changes,
    board_counts,
    board_frame,
    board_rows,
    paused_changes,
    review_payload,
    section_options,
    undecided_line,
)
from ui.frames import SEVERITIES, STATUSES, TYPES, frame_records, label

COLUMNS = {
    "id": st.column_config.TextColumn("ID", width=110),
    "type": st.column_config.SelectboxColumn("Type", options=TYPES, format_func=label, width=170, required=True),
    "subject": st.column_config.TextColumn("Subject", width=120, pinned=True),
    "description": st.column_config.TextColumn("Description", width=380),
    "severity": st.column_config.SelectboxColumn(
        "Severity", options=SEVERITIES, default="medium", width=90, required=True
    ),
    "status": st.column_config.TextColumn("Status", width=100),
    "decision": st.column_config.SelectboxColumn(
        "Decision",
        options=DECISIONS,
        width=105,
        help="Approve a proposed correction, or dismiss a deficiency (a proposal needs one or the other).",
    ),
    "attempts": st.column_config.NumberColumn("Attempts", format="%d", width=70),
    "correction query": st.column_config.TextColumn("Correction query", width=260),
    "origin": st.column_config.TextColumn("Origin", default="analyst", width=80),
    "first seen": st.column_config.NumberColumn("First seen (cycle)", format="%d", width=80),
    "note": st.column_config.TextColumn("Note", width=180),
    "accepted risk": st.column_config.CheckboxColumn("Accepted risk", width=90),
}
ROW_HEIGHT = 72
"""Tall enough for the grid to wrap text (it wraps above 4 rem), so a description reads in three lines."""
wb = shared.workbench()
result = shared.current_result(wb)
user = shared.user_id()

st.title("Deficiency board")

if result is None:
    shared.no_session_hint()
else:
    tid = result.thread_id
    rows = board_rows(result.identified_deficiencies)
    columns = {
        **COLUMNS,
        "section": st.column_config.SelectboxColumn(
            "Section",
            options=section_options(result),
            width=80,
            help="The answer section a row you add belongs to: its correction is revised into that section.",
        ),
    }
    height = min(ROW_HEIGHT * len(rows) + 38, 640)
    counters = st.container()

    def read_only_board() -> None:
        """The board as a table nobody edits (a run executes, or the session has neither review nor answer)."""
        st.dataframe(
            board_frame(rows),
            column_config=columns,
            column_order=FINISHED_ORDER,
            hide_index=True,
            height=height,
            row_height=ROW_HEIGHT,
        )

    counted: tuple[list, BoardChanges] = (rows, BoardChanges())

    if wb.is_running(tid) or result.status == SessionStatus.running:
        st.info(
            "A run is executing on this session: the board is read-only until it pauses or finishes.",
            icon=":material/lock:",
        )
        read_only_board()

    elif result.status == SessionStatus.awaiting_review and result.pending_review:
        cycle = result.pending_review["cycle"]
        proposals = result.pending_review["proposals"]
        st.info(
            f"The loop is paused for review at cycle {cycle}. Give each proposed correction a **decision** "
            "(approve, or dismiss); change a severity, a correction query or a note, dismiss another deficiency, "
            "or add a row for one the critics missed. The edits are kept on the server until the review is "
            "answered (here or from the Research page).",
            icon=":material/edit:",
        )
        staged = wb.staged_edits(tid, user, cycle=cycle)
        generation = st.session_state.setdefault("board-generation", {}).get(f"{tid}:{cycle}", 0)
        key = f"board-{tid}-{cycle}-{generation}"
        if key not in st.session_state:  # a new visit (or a reload): start from the edits staged on the server
            st.session_state[f"{key}-base"] = staged.rows if staged else rows
        edited = st.data_editor(
            board_frame(st.session_state[f"{key}-base"]),
            key=key,
            num_rows="add",
            hide_index=True,
            column_config=columns,
            column_order=PAUSED_ORDER,
            disabled=["id", "status", "attempts", "origin", "first seen"],
            placeholder="—",
            height=height,
            row_height=ROW_HEIGHT,
        )
        edited_rows = frame_records(edited)
        changes = paused_changes(result.identified_deficiencies, edited_rows, [p["id"] for p in proposals])
        counted = (edited_rows, changes)
        touched = edited_rows != frame_records(board_frame(rows))
        if touched and (staged is None or staged.rows != edited_rows):
            staged = wb.stage_edits(tid, edited_rows, user, cycle=cycle)
        elif not touched and staged is not None:
            wb.discard_staged(tid, user)
            staged = None
        for problem in changes.problems:
            st.warning(md_escape(problem))
        if changes:
            st.markdown(
                "**Staged for the next resume**  \n" + "  \n".join(f"- {md_escape(line)}" for line in changes.summary())
            )
        buttons = st.container(horizontal=True, vertical_alignment="center")
        resume = buttons.button(
            "Resume with these edits", type="primary", icon=":material/play_arrow:", disabled=bool(changes.undecided)
        )
        if buttons.button("Discard staged edits", icon=":material/undo:", disabled=staged is None):
            wb.discard_staged(tid, user)
            st.session_state["board-generation"][f"{tid}:{cycle}"] = generation + 1
            st.rerun()
        buttons.caption(undecided_line(len(changes.undecided), len(proposals), "proposals"))
        if staged is not None:
            st.caption(
                f"Staged edits from {staged.saved_at.replace('T', ' ').replace('+00:00', ' UTC')} (not yet submitted)."
            )
        if resume:
            payload = review_payload(proposals, {}, changes, shared.reviewer(), cycle=cycle)
            shared.run_live(
                "Resuming the loop with the board's edits…",
                lambda progress: wb.resume(tid, payload, on_event=progress, user_id=user),
            )

    elif result.status == SessionStatus.completed:
        st.caption(
            "The run is finished. Add a note, mark a residual deficiency as accepted risk, or change a "
            "severity; each change is saved with your name and a reason in the session's history."
        )
        generation = st.session_state.setdefault("annotation-generation", {}).get(tid, 0)
        with st.form(f"annotate-{tid}-{generation}"):
            edited = st.data_editor(
                board_frame(rows),
                key=f"annotations-{tid}-{generation}",
                hide_index=True,
                column_config=columns,
                column_order=FINISHED_ORDER,
                height=height,
                row_height=ROW_HEIGHT,
                disabled=[c for c in COLUMNS if c not in ("severity", "note", "accepted risk")],
            )
            editor_col, reason_col = st.columns(2)
            editor = editor_col.text_input("Editor", value=shared.reviewer())
            reason = reason_col.text_input("Reason", placeholder="Why these changes (required)")
            saved = st.form_submit_button("Save annotations", type="primary", icon=":material/save:")
        if saved:
            changes = annotation_changes(result.identified_deficiencies, frame_records(edited))
            if not changes:
                st.info("Nothing changed on the board.")
            else:
                try:
                    for change in changes:
                        wb.annotate(tid, change.pop("id"), editor=editor, reason=reason, user_id=user, **change)
                except InputError as exc:
                    st.error(md_escape(str(exc)))
                else:
                    shared.forget_reads()
                    st.session_state["annotation-generation"][tid] = generation + 1
                    shared.flash(f"Saved {len(changes)} annotation(s) by {md_escape(editor)}.")
                    st.rerun()
        acts.confirm_panel(wb, result)
        acts.strike_panel(wb, result)

    else:
        read_only_board()
        st.caption("The board is editable while the loop waits for review, and can be annotated once it finishes.")

    status_counts = board_counts(*counted)
    for col, status in zip(counters.columns(len(STATUSES)), STATUSES):
        col.metric(label(status), status_counts[status])
