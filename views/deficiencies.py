"""Deficiencies: every problem the critics found, editable while the loop waits, annotated after it finishes; a
deficiency the critics missed is added with the "Add deficiency" button (to the review while paused, as a disclosed
residual after the run)."""

from typing import Any

import streamlit as st

from core.domain.records import AnalystDeficiency
from core.domain.safe_markdown import md_escape
from core.service import InputError, RunResult, SessionStatus
from ui import acts, shared
from ui.board import (
    BOARD_COLUMNS,
    DECISIONS,
    FINISHED_ORDER,
    PAUSED_ORDER,
    ROW_HEIGHT,
    BoardChanges,
    added_line,
    added_row,
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
from ui.tables import grid_height

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
ANNOTATED = ("severity", "note", "accepted risk")
"""What an analyst may change on a finished session's board."""


def board_columns(result: RunResult) -> dict[str, Any]:
    """The grid's columns, with the sections this session's answer can hold."""
    return {
        **COLUMNS,
        "section": st.column_config.SelectboxColumn(
            "Section",
            options=section_options(result),
            width=80,
            required=True,
            help="The answer section a row you add belongs to: its correction is revised into that section.",
        ),
    }


def read_only_board(rows: list[dict], columns: dict[str, Any]) -> None:
    """The board as a table nobody edits (a run executes, or the session has neither review nor answer)."""
    st.dataframe(
        board_frame(rows),
        column_config=columns,
        column_order=FINISHED_ORDER,
        hide_index=True,
        height=grid_height(len(rows)),
        row_height=ROW_HEIGHT,
    )


def add_form(result: RunResult, key: str, *, after_run: bool) -> dict[str, Any] | None:
    """The "Add deficiency" button and its form (type and section first: an added row needs them); the fields of
    the new deficiency once the form is complete, with what is missing said otherwise."""
    sections = section_options(result)
    with st.popover("Add deficiency", icon=":material/add:"), st.form(key):
        type_col, section_col, severity_col = st.columns(3)
        kind = type_col.selectbox("Type", TYPES, format_func=label, index=None, placeholder="Choose a type")
        section = section_col.selectbox("Section", sections, index=None, placeholder="Choose a section")
        severity = severity_col.selectbox("Severity", SEVERITIES, index=SEVERITIES.index("medium"))
        subject = st.text_input("Subject", placeholder="What is wrong, in a few words")
        description = st.text_area("Description", height=80)
        query = st.text_input("Correction query", placeholder="What to look for in the corpus")
        note = st.text_input("Note")
        reason = st.text_input("Reason", placeholder="Why you add it (required)") if after_run else ""
        submitted = st.form_submit_button("Add", type="primary", icon=":material/add:")
    if not submitted:
        return None
    row = {
        "type": kind,
        "section": section,
        "subject": subject,
        "description": description,
        "correction query": query,
        "severity": severity,
        "note": note,
    }
    fields, problems = added_row({k: (v.strip() if isinstance(v, str) else v) for k, v in row.items()})
    if after_run and not reason.strip():
        problems.append("say why you add it (reason)")
    for problem in problems:
        st.error(f"The new deficiency {md_escape(problem)}.")
    if fields is None or problems:
        return None
    return {**fields, "reason": reason.strip()}


def paused_board(result: RunResult, rows: list[dict], columns: dict[str, Any]) -> tuple[list, BoardChanges]:
    """The editable board of a paused session: decisions, edits and added rows are staged on the server until the
    review is answered (here or on the Research page). The rows and changes shown, for the counters."""
    tid, user = result.thread_id, shared.user_id()
    cycle = result.pending_review["cycle"]
    proposals = result.pending_review["proposals"]
    st.info(
        f"The loop is paused for review at cycle {cycle}. Give each proposed correction a **decision** "
        "(approve, or dismiss); change a severity, a correction query or a note, dismiss another deficiency, "
        "or press **Add deficiency** for one the critics missed. The edits are kept on the server until the "
        "review is answered (here or from the Research page).",
        icon=":material/edit:",
    )
    toolbar = st.container()
    staged = wb.staged_edits(tid, user, cycle=cycle)
    generations = st.session_state.setdefault("board-generation", {})
    generation = generations.get(f"{tid}:{cycle}", 0)
    key = f"board-{tid}-{cycle}-{generation}"
    if key not in st.session_state:  # a new visit (or a reload): start from the edits staged on the server
        st.session_state[f"{key}-base"] = staged.rows if staged else rows
    base = st.session_state[f"{key}-base"]
    edited = st.data_editor(
        board_frame(base),
        key=key,
        num_rows="add",
        hide_index=True,
        column_config=columns,
        column_order=PAUSED_ORDER,
        disabled=["id", "status", "attempts", "origin", "first seen"],
        placeholder="—",
        height=grid_height(len(base), adding=True),
        row_height=ROW_HEIGHT,
    )
    edited_rows = frame_records(edited)
    changes = paused_changes(result.identified_deficiencies, edited_rows, [p["id"] for p in proposals])
    touched = edited_rows != frame_records(board_frame(rows))
    if touched and (staged is None or staged.rows != edited_rows):
        staged = wb.stage_edits(tid, edited_rows, user, cycle=cycle)
    elif not touched and staged is not None:
        wb.discard_staged(tid, user)
        staged = None
    with toolbar:
        added = add_form(result, f"add-{key}", after_run=False)
    if added is not None:
        new = {
            **dict.fromkeys(BOARD_COLUMNS),
            "type": added["deficiency_type"],
            "subject": added["subject"],
            "section": added["affected_section"],
            "description": added["description"],
            "severity": added["severity"],
            "correction query": added["suggested_correction_query"],
            "note": added["note"],
            "origin": "analyst",
        }
        wb.stage_edits(tid, [*edited_rows, new], user, cycle=cycle)
        generations[f"{tid}:{cycle}"] = generation + 1
        shared.flash(f"Staged for the next resume: {md_escape(added_line(added))}.")
        st.rerun()
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
        generations[f"{tid}:{cycle}"] = generation + 1
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
    return edited_rows, changes


def finished_board(result: RunResult, rows: list[dict], columns: dict[str, Any]) -> None:
    """A finished session's board: annotations (note, accepted risk, severity) with editor and reason, and
    deficiencies the analyst adds as disclosed residuals (no new loop runs)."""
    tid, user = result.thread_id, shared.user_id()
    st.caption(
        "The run is finished. Add a note, mark a residual deficiency as accepted risk, or change a severity; "
        "press **Add deficiency** for one the critics missed (it is disclosed as a residual in every export; no "
        "correction runs). Each change is saved with your name and a reason in the session's history."
    )
    generations = st.session_state.setdefault("annotation-generation", {})
    generation = generations.get(tid, 0)
    added = add_form(result, f"add-{tid}-{generation}", after_run=True)
    if added is not None:
        reason = added.pop("reason")
        try:
            wb.add_residual(tid, AnalystDeficiency(**added), editor=shared.reviewer(), reason=reason, user_id=user)
        except InputError as exc:
            st.error(md_escape(str(exc)))
        else:
            shared.forget_reads()
            generations[tid] = generation + 1
            shared.flash(f"Recorded as a residual by {md_escape(shared.reviewer())}: {md_escape(added_line(added))}.")
            st.rerun()
    with st.form(f"annotate-{tid}-{generation}"):
        edited = st.data_editor(
            board_frame(rows),
            key=f"annotations-{tid}-{generation}",
            hide_index=True,
            column_config=columns,
            column_order=FINISHED_ORDER,
            height=grid_height(len(rows)),
            row_height=ROW_HEIGHT,
            disabled=[c for c in BOARD_COLUMNS if c not in ANNOTATED],
        )
        editor_col, reason_col = st.columns(2)
        editor = editor_col.text_input("Editor", value=shared.reviewer())
        reason = reason_col.text_input("Reason", placeholder="Why these changes (required)")
        saved = st.form_submit_button("Save annotations", type="primary", icon=":material/save:")
    acts.confirm_panel(wb, result)
    acts.strike_panel(wb, result)
    if not saved:
        return
    changes = annotation_changes(result.identified_deficiencies, frame_records(edited))
    if not changes:
        st.info("Nothing changed on the board.")
        return
    try:
        for change in changes:
            wb.annotate(tid, change.pop("id"), editor=editor, reason=reason, user_id=user, **change)
    except InputError as exc:
        st.error(md_escape(str(exc)))
    else:
        shared.forget_reads()
        generations[tid] = generation + 1
        shared.flash(f"Saved {len(changes)} annotation(s) by {md_escape(editor)}.")
        st.rerun()


def show_counters(container: Any, rows: list[dict], changes: BoardChanges) -> None:
    """Deficiencies per status, with the staged edits."""
    status_counts = board_counts(rows, changes)
    for col, status in zip(container.columns(len(STATUSES)), STATUSES):
        col.metric(label(status), status_counts[status])


def page(result: RunResult | None) -> None:
    """The board of the open session, in the mode its status allows."""
    st.title("Deficiency board")
    if result is None:
        shared.no_session_hint()
        return
    rows = board_rows(result.identified_deficiencies)
    columns = board_columns(result)
    counters = st.container()
    counted: tuple[list, BoardChanges] = (rows, BoardChanges())
    if wb.is_running(result.thread_id) or result.status == SessionStatus.running:
        st.info(
            "A run is executing on this session: the board is read-only until it pauses or finishes.",
            icon=":material/lock:",
        )
        read_only_board(rows, columns)
    elif result.status == SessionStatus.awaiting_review and result.pending_review:
        counted = paused_board(result, rows, columns)
    elif result.status == SessionStatus.completed:
        finished_board(result, rows, columns)
    else:
        read_only_board(rows, columns)
        st.caption("The board is editable while the loop waits for review, and can be annotated once it finishes.")
    show_counters(counters, *counted)


wb = shared.workbench()
page(shared.current_result(wb))
