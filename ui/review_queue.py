"""The Research page's review queue: one card per proposed correction (decision, query, note, the flagged claim
and its evidence), the draft under review beside them, Submit / Approve all / Stop, and the answer of a tab whose
review another tab answered first."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core.domain.safe_markdown import md_escape
from core.service import InputError, RunResult, SessionStatus, Workbench
from ui import acts, evidence, live, shared
from ui.board import BoardChanges, paused_changes, review_payload, undecided_line
from ui.cards import card_decision
from ui.frames import answer_markdown, label, severity_badge
from ui.outcome import outcome_markdown

ACTIONS = {"approve": "Approve", "edit": "Edit query", "reject": "Reject"}
INTENT_KEY = "review-intent"
STALE = "This review was already answered (in another tab?): reload to see where the session stands."


def card_key(part: str, thread_id: str, cycle: int, proposal: dict) -> str:
    """The widget key of one part (action, query, note) of a review card."""
    return f"{part}-{thread_id}-{cycle}-{proposal['id']}"


def review_card(wb: Workbench, thread_id: str, cycle: int, p: dict, shown: RunResult) -> tuple[str | None, str, str]:
    """One proposed correction with the flagged claim and the critic's evidence, its decision (none until chosen),
    query and note; plain widgets, no form, so Enter in a field never submits the review."""
    st.markdown(f"{severity_badge(p['severity'])} **{label(p['deficiency_type'])}** · {md_escape(p['subject'])}")
    st.markdown(md_escape(p["description"]))
    flagged = next((d for d in shown.identified_deficiencies if d.id == p["id"]), None)
    if flagged is not None:
        with st.expander("Flagged claim and the evidence the critic used", icon=":material/find_in_page:"):
            evidence.deficiency_evidence(wb, shown, flagged)
    st.caption(f"{p['id']} · section {md_escape(p['section'] or '-')} · {p['attempts']} earlier attempt(s)")
    action = st.radio(
        "Decision",
        list(ACTIONS),
        index=None,
        format_func=ACTIONS.get,
        horizontal=True,
        key=card_key("action", thread_id, cycle, p),
    )
    query = st.text_area("Correction query", value=p["query"], height=68, key=card_key("query", thread_id, cycle, p))
    if not p["query"]:
        st.caption(
            "No retrieval needed: the revision uses the corpus metadata. Write a query to retrieve evidence instead."
        )
    note = st.text_input("Note", placeholder="Why (required when rejecting)", key=card_key("note", thread_id, cycle, p))
    return action, query, note


def confirm_key(thread_id: str, cycle: int) -> str:
    return f"confirm-all-{thread_id}-{cycle}"


def confirm_all(thread_id: str, cycle: int, asking: bool) -> None:
    """Open (or cancel) the confirmation that "Approve all" needs."""
    st.session_state[confirm_key(thread_id, cycle)] = asking


def ask(thread_id: str, cycle: int, kind: str, proposals: list[dict]) -> None:
    """Button callback: remember what was asked of which review, with the cards as they were, before the rerun
    reads the session again (so an answer meant for a review that is gone is told apart, not lost silently)."""
    st.session_state[INTENT_KEY] = {
        "thread": thread_id,
        "cycle": cycle,
        "kind": kind,
        "cards": {
            p["id"]: (
                st.session_state.get(card_key("action", thread_id, cycle, p)),
                st.session_state.get(card_key("query", thread_id, cycle, p), p["query"]),
                st.session_state.get(card_key("note", thread_id, cycle, p), ""),
            )
            for p in proposals
        },
    }
    st.session_state.pop(confirm_key(thread_id, cycle), None)


def stale_review(intent: dict) -> None:
    """Say that the review this tab answered is gone, and show what was decided on it (nothing was applied)."""
    st.warning(STALE, icon=":material/sync_problem:")
    decided = [
        f"{did}: {ACTIONS[a]}" + (f" ({note})" if note else "") for did, (a, _, note) in intent["cards"].items() if a
    ]
    if decided:
        st.caption("Your decisions on it were not applied:  \n" + "  \n".join(md_escape(line) for line in decided))


def resume(wb: Workbench, thread_id: str, cycle: int, payload: dict, progress: live.LiveProgress) -> RunResult:
    """Answer the review of `cycle`; a refusal because another tab answered it first says so in plain words."""
    user = shared.user_id()
    try:
        return wb.resume(thread_id, payload, on_event=progress, user_id=user)
    except InputError:
        now = wb.show(thread_id, user_id=user)
        if now.status != SessionStatus.awaiting_review or (now.pending_review or {}).get("cycle") != cycle:
            raise InputError(STALE) from None
        raise


def review_queue(wb: Workbench, result: RunResult, intent: dict[str, Any] | None) -> None:
    """The paused session's cards beside its draft; answers the review when the analyst asked to (`intent`)."""
    tid, user, pending = result.thread_id, shared.user_id(), result.pending_review
    if pending is None:
        return
    cycle, proposals = pending["cycle"], pending["proposals"]
    staged = wb.staged_edits(tid, user, cycle=cycle)
    board = (
        paused_changes(result.identified_deficiencies, staged.rows, [p["id"] for p in proposals])
        if staged
        else BoardChanges()
    )
    queue, draft = st.columns([3, 2], gap="large")
    with draft:
        st.markdown("**Draft under review**")
        with st.container(height=640, border=True):
            st.markdown(answer_markdown(pending["answer"]))
    with queue:
        st.info(outcome_markdown(result.outcome), icon=":material/pending_actions:")
        if pending.get("auto_decided"):
            st.caption(
                "Decided by the approval policy: "
                + ", ".join(f"{did} ({action})" for did, action in pending["auto_decided"].items())
            )
        if board:
            st.warning(
                "Edits staged on the Deficiencies board travel with this review:  \n"
                + "  \n".join(f"- {md_escape(line)}" for line in board.summary())
            )
        cards = {}
        for p in proposals:
            with st.container(border=True):
                cards[p["id"]] = review_card(wb, tid, cycle, p, result)
        extra = (
            acts.confirmation_cards(tid, cycle, pending.get("confirmations", [])),
            acts.review_strikes(result, cycle),
        )
        undecided = sum(1 for action, _, _ in cards.values() if action is None)
        buttons = st.container(horizontal=True, vertical_alignment="center")
        buttons.button(
            "Submit decisions",
            type="primary",
            icon=":material/send:",
            disabled=undecided > 0,
            on_click=ask,
            args=(tid, cycle, "submit", proposals),
        )
        buttons.button("Approve all", icon=":material/done_all:", on_click=confirm_all, args=(tid, cycle, True))
        buttons.button(
            "Stop and finalize", icon=":material/stop_circle:", on_click=ask, args=(tid, cycle, "stop", proposals)
        )
        buttons.caption(undecided_line(undecided, len(proposals), "cards"))
        if st.session_state.get(confirm_key(tid, cycle)):
            with st.container(border=True):
                st.warning(
                    f"Approve all {len(proposals)} proposed correction(s) as proposed? Decisions, edited "
                    "queries and notes on the cards are not used.",
                    icon=":material/help:",
                )
                confirm = st.container(horizontal=True)
                confirm.button(
                    f"Yes, approve all {len(proposals)}",
                    type="primary",
                    on_click=ask,
                    args=(tid, cycle, "approve_all", proposals),
                )
                confirm.button("Cancel", on_click=confirm_all, args=(tid, cycle, False))
    if intent is not None:
        answer_review(wb, result, intent, board, extra)


def answer_review(
    wb: Workbench,
    result: RunResult,
    intent: dict[str, Any],
    board: BoardChanges,
    extra: tuple[dict[str, dict], list[dict[str, str]]] = ({}, []),
) -> None:
    """Resume with what the analyst asked (submit the cards, approve all, or stop), the board's staged edits,
    the confirmations of added deficiencies and the claims to strike riding along; a card that is not complete
    says what it needs and nothing is sent."""
    tid, pending = result.thread_id, result.pending_review or {}
    cycle, proposals = pending["cycle"], pending["proposals"]
    kind, decisions, errors = intent["kind"], {}, []
    if kind == "submit":
        for p in proposals:
            decision, error = card_decision(p, *intent["cards"][p["id"]])
            if error:
                errors.append(error)
            else:
                decisions[p["id"]] = decision
    payload = review_payload(proposals, decisions, board, shared.reviewer(), cycle=cycle, stop=kind == "stop")
    confirmed, struck = extra
    payload["decisions"].update(confirmed)
    payload["struck"] = struck
    for error in errors:
        st.error(md_escape(error))
    if not errors:
        shared.run_live("Resuming the loop…", lambda progress: resume(wb, tid, cycle, payload, progress))


def take_intent(result: RunResult, answerable: bool) -> dict[str, Any] | None:
    """What this tab asked of the open session's review on the last click, if that review is still the one
    waiting; a stale answer is said so (and dropped)."""
    intent = st.session_state.pop(INTENT_KEY, None)
    if intent is None or intent["thread"] != result.thread_id:
        return None
    if not (answerable and result.pending_review and result.pending_review["cycle"] == intent["cycle"]):
        stale_review(intent)
        return None
    return intent
