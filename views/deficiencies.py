"""Deficiencies: every problem the critics found, editable while the loop waits, annotated after it finishes."""

import streamlit as st

from core.results import RUNNING
from core.safe_markdown import md_escape
from core.service import InputError
from ui import shared
from ui.frames import (
    FINISHED_ORDER,
    PAUSED_ORDER,
    SEVERITIES,
    STATUSES,
    TYPES,
    annotation_changes,
    board_frame,
    board_rows,
    frame_records,
    label,
    paused_changes,
    review_payload,
)

COLUMNS = {
    "id": st.column_config.TextColumn("ID", width="small"),
    "type": st.column_config.SelectboxColumn("Type", options=TYPES, width="medium"),
    "subject": st.column_config.TextColumn("Subject", width="medium", pinned=True),
    "description": st.column_config.TextColumn("Description", width="large"),
    "severity": st.column_config.SelectboxColumn("Severity", options=SEVERITIES, default="medium", width="small"),
    "status": st.column_config.SelectboxColumn("Status", options=STATUSES, default="open", width="small"),
    "attempts": st.column_config.NumberColumn("Attempts", format="%d", width="small"),
    "correction query": st.column_config.TextColumn("Correction query", width="large"),
    "origin": st.column_config.TextColumn("Origin", default="analyst", width="small"),
    "first seen": st.column_config.NumberColumn("First seen (cycle)", format="%d", width="small"),
    "note": st.column_config.TextColumn("Note", width="medium"),
    "accepted risk": st.column_config.CheckboxColumn("Accepted risk", width="small"),
}
wb = shared.workbench()
result = shared.current_result(wb)

st.title("Deficiency board")

if result is None:
    shared.no_session_hint()
else:
    tid = result.thread_id
    rows = board_rows(result.identified_deficiencies)
    height = min(35 * (len(rows) + 1) + 3, 560)
    counts = st.columns(len(STATUSES))
    for col, status in zip(counts, STATUSES):
        col.metric(label(status), sum(1 for r in rows if r["status"] == status))

    if wb.is_running(tid) or result.status == RUNNING:
        st.info(
            "A run is executing on this session: the board is read-only until it pauses or finishes.",
            icon=":material/lock:",
        )
        st.dataframe(
            board_frame(rows), column_config=COLUMNS, column_order=FINISHED_ORDER, hide_index=True, height=height
        )

    elif result.status == "awaiting_review" and result.pending_review:
        cycle = result.pending_review["cycle"]
        proposals = result.pending_review["proposals"]
        st.info(
            f"The loop is paused for review at cycle {cycle}. Change a severity, a correction query or a note, "
            "set a status to **dismissed**, or add a row for a deficiency the critics missed. The edits travel "
            "with the next resume (here or from the Research page); proposals you leave unchanged are approved.",
            icon=":material/edit:",
        )
        generation = st.session_state.setdefault("board-generation", {}).get(f"{tid}:{cycle}", 0)
        key = f"board-{tid}-{cycle}-{generation}"
        if key not in st.session_state:  # a new visit: start from the edits staged on the last one
            st.session_state[f"{key}-base"] = shared.staged_rows(tid, cycle) or rows
        edited = st.data_editor(
            board_frame(st.session_state[f"{key}-base"]),
            key=key,
            num_rows="add",
            hide_index=True,
            column_config=COLUMNS,
            column_order=PAUSED_ORDER,
            disabled=["id", "attempts", "origin", "first seen"],
            height=height,
        )
        edited_rows = frame_records(edited)
        changes = paused_changes(result.identified_deficiencies, edited_rows, [p["id"] for p in proposals])
        touched = edited_rows != frame_records(board_frame(rows))
        shared.stage_rows(tid, cycle, edited_rows if touched else None)
        for problem in changes.problems:
            st.warning(md_escape(problem))
        if changes:
            st.markdown(
                "**Staged for the next resume**  \n" + "  \n".join(f"- {md_escape(line)}" for line in changes.summary())
            )
        buttons = st.container(horizontal=True)
        resume = buttons.button("Resume with these edits", type="primary", icon=":material/play_arrow:")
        if buttons.button("Discard edits", icon=":material/undo:", disabled=not touched):
            shared.stage_rows(tid, cycle, None)
            st.session_state["board-generation"][f"{tid}:{cycle}"] = generation + 1
            st.rerun()
        if resume:
            payload = review_payload(proposals, {}, changes, shared.reviewer(), cycle=cycle)
            shared.run_live(
                "Resuming the loop with the board's edits…",
                lambda live: wb.resume(tid, payload, on_event=live, user_id=shared.user_id()),
            )

    elif result.status == "completed":
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
                column_config=COLUMNS,
                column_order=FINISHED_ORDER,
                height=height,
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
                        wb.annotate(
                            tid, change.pop("id"), editor=editor, reason=reason, user_id=shared.user_id(), **change
                        )
                except InputError as exc:
                    st.error(md_escape(str(exc)))
                else:
                    shared.forget_reads()
                    st.session_state["annotation-generation"][tid] = generation + 1
                    shared.flash(f"Saved {len(changes)} annotation(s) by {md_escape(editor)}.")
                    st.rerun()

    else:
        st.dataframe(
            board_frame(rows), column_config=COLUMNS, column_order=FINISHED_ORDER, hide_index=True, height=height
        )
        st.caption("The board is editable while the loop waits for review, and can be annotated once it finishes.")
