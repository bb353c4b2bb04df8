"""Research: ask a question, watch the loop live, decide on its proposed corrections, read the answer."""

from datetime import date

import streamlit as st

from core.domain.limits import MAX_CYCLES, MIN_AS_OF, latest_as_of
from core.domain.safe_markdown import md_escape
from core.service import InputError, RunResult, SessionStatus
from ui import acts, evidence, live, shared
from ui.board import BoardChanges, card_decision, paused_changes, review_payload, undecided_line
from ui.frames import answer_markdown, citation_frame, label, severity_badge
from ui.outcome import outcome_markdown

POLICIES = {
    "manual": "Manual: I review every proposed correction",
    "severity>=high": "Auto-approve high and critical; I review the rest",
    "severity>=critical": "Auto-approve critical; I review the rest",
    "all": "Approve every correction automatically",
    "none": "Reject every correction (draft and critique only)",
}
ACTIONS = {"approve": "Approve", "edit": "Edit query", "reject": "Reject"}
EXAMPLE = (
    "e.g. Compare CDD requirements for money service businesses under EU AMLR 2024 and FinCEN's CDD Rule, "
    "focusing on beneficial ownership thresholds."
)
INTENT_KEY = "review-intent"
STALE = "This review was already answered (in another tab?): reload to see where the session stands."

wb = shared.workbench()
result = shared.current_result(wb)
user = shared.user_id()
today = date.today()


def card_key(part: str, thread_id: str, cycle: int, proposal: dict) -> str:
    """The widget key of one part (action, query, note) of a review card."""
    return f"{part}-{thread_id}-{cycle}-{proposal['id']}"


def review_card(thread_id: str, cycle: int, p: dict, shown: RunResult) -> tuple[str | None, str, str]:
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


def resume(thread_id: str, cycle: int, payload: dict, progress: live.LiveProgress) -> RunResult:
    """Answer the review of `cycle`; a refusal because another tab answered it first says so in plain words."""
    try:
        return wb.resume(thread_id, payload, on_event=progress, user_id=user)
    except InputError:
        now = wb.show(thread_id, user_id=user)
        if now.status != SessionStatus.awaiting_review or (now.pending_review or {}).get("cycle") != cycle:
            raise InputError(STALE) from None
        raise


st.title("Research")

# ------------------------------------------------------------------------------------------ a new question
with st.expander("New research question", expanded=result is None, icon=":material/edit_note:"), st.form("ask"):
    question = st.text_area("Question", placeholder=EXAMPLE, max_chars=wb.settings.max_query_chars, height=100)
    left, middle, right = st.columns(3)
    as_of = left.date_input(
        "Answer correct as of",
        value=today,
        min_value=MIN_AS_OF,
        max_value=latest_as_of(today),
        format="YYYY-MM-DD",
        help="Sources are judged by their status on this date.",
    )
    max_cycles = middle.number_input(
        "Max correction cycles", min_value=0, max_value=MAX_CYCLES, value=wb.settings.max_cycles, step=1
    )
    policy = right.selectbox("Approval policy", list(POLICIES), format_func=POLICIES.get)
    asked = st.form_submit_button("Run", type="primary", icon=":material/play_arrow:")
if asked:
    shared.run_live(
        "Starting the loop…",
        lambda progress: wb.start(
            question,
            as_of=as_of,
            max_cycles=int(max_cycles),
            approve=policy,
            user_id=user,
            actor=shared.reviewer(),
            on_event=progress,
        ),
    )

if result is None:
    st.caption(
        "The loop drafts an answer from the corpus, critiques it into deficiencies, and proposes a targeted "
        "correction for each; you approve, edit or reject them before any correction retrieval runs."
    )
else:
    tid = result.thread_id
    st.subheader(md_escape(result.question))
    st.markdown(f"{shared.status_badge(result)} · session `{tid}` · engine {md_escape(result.engine)}")
    cols = st.columns(4)
    cols[0].metric("Quality score", "—" if result.quality_score is None else f"{result.quality_score:.2f}")
    cols[1].metric("Cycle", f"{result.evaluation_cycle} of {result.max_evaluation_cycles}")
    cols[2].metric("As of", result.as_of.isoformat() if result.as_of else "—")
    cols[3].metric("Approval", result.approval_policy)
    live.show_run_log(tid)
    intent = st.session_state.pop(INTENT_KEY, None)
    if intent is not None and intent["thread"] != tid:
        intent = None
    answerable = result.status == SessionStatus.awaiting_review and result.pending_review and not wb.is_running(tid)
    if intent is not None and not (answerable and result.pending_review["cycle"] == intent["cycle"]):
        stale_review(intent)
        intent = None

    # ------------------------------------------------------------------------------------- review queue
    if wb.is_running(tid) or result.status == SessionStatus.running:
        st.info(
            "A run is executing on this session (in another tab, or on another server). Refresh to see where it stands."
        )
        st.button("Refresh", icon=":material/refresh:")

    elif result.status == SessionStatus.awaiting_review and result.pending_review:
        pending = result.pending_review
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
                    cards[p["id"]] = review_card(tid, cycle, p, result)
            confirmed = acts.confirmation_cards(tid, cycle, pending.get("confirmations", []))
            struck = acts.review_strikes(result, cycle)
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
            kind, decisions, errors = intent["kind"], {}, []
            if kind == "submit":
                for p in proposals:
                    decision, error = card_decision(p, *intent["cards"][p["id"]])
                    if error:
                        errors.append(error)
                    else:
                        decisions[p["id"]] = decision
            payload = review_payload(proposals, decisions, board, shared.reviewer(), cycle=cycle, stop=kind == "stop")
            payload["decisions"].update(confirmed)
            payload["struck"] = struck
            for error in errors:
                st.error(md_escape(error))
            if not errors:
                shared.run_live("Resuming the loop…", lambda progress: resume(tid, cycle, payload, progress))

    # ------------------------------------------------------------------------------------------- answer
    elif result.status == SessionStatus.completed:
        st.info(outcome_markdown(result.outcome), icon=":material/flag:")
        residual = sorted(result.residual_deficiencies, key=lambda d: -d.severity.rank)
        with st.container(border=True):
            if residual:
                st.error(
                    f"**Residual deficiencies: {len(residual)}.** The loop did not resolve "
                    f"{'these' if len(residual) != 1 else 'this one'}; the answer discloses "
                    f"{'them' if len(residual) != 1 else 'it'} in every export.",
                    icon=":material/report:",
                )
                for d in residual:
                    extra = " · accepted risk" if d.accepted_risk else ""
                    st.markdown(
                        f"{severity_badge(d.severity.value)} **{label(d.deficiency_type.value)}** "
                        f"({label(d.resolution_status.value)}{extra}): {md_escape(d.description)}"
                    )
                    if d.analyst_note:
                        st.caption(f"Note: {md_escape(d.analyst_note)}")
            else:
                st.success(
                    "No residual deficiencies: nothing is left to disclose.",
                    icon=":material/verified:",
                )
        st.markdown("#### Answer")
        with st.container(border=True):
            st.markdown(shared.flagged_answer(result) or "_The loop produced no answer._")
        st.markdown("#### Citations")
        citations = citation_frame(result)
        st.dataframe(citations, hide_index=True)
        stale = citations[citations["status at as-of"] != "in force"]
        if not stale.empty:
            st.caption(
                "Cited but not in force at the as-of date: "
                + ", ".join(md_escape(d) for d in stale["document"])
                + " (cited for context; see the answer's wording)."
            )
        st.markdown("#### Evidence per claim")
        st.caption(
            "Expand a claim to read the passages it quotes, the quoted sentence in bold, with each document's "
            "status at the as-of date, its dates and how it arrived."
        )
        evidence.claim_evidence(wb, result)
        acts.confirm_panel(wb, result)

    elif result.status == SessionStatus.interrupted:
        st.warning(
            "The last run on this session was cut off before it paused or finished (the server stopped "
            "mid-run). It can carry on from its last checkpoint.",
            icon=":material/warning:",
        )
        if st.button("Continue the run", type="primary", icon=":material/play_arrow:"):
            shared.run_live(
                "Continuing the loop…", lambda progress: wb.continue_run(tid, on_event=progress, user_id=user)
            )

    else:
        st.warning("This session holds no loop state (it failed before its first step). Ask the question again.")
