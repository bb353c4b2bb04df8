"""Research: ask a question, watch the loop live, decide on its proposed corrections, read the answer."""

from datetime import date

import streamlit as st

from core.limits import MAX_CYCLES, MIN_AS_OF, latest_as_of
from core.results import RUNNING
from core.safe_markdown import md_escape
from ui import evidence, shared
from ui.frames import (
    BoardChanges,
    answer_markdown,
    card_decision,
    citation_frame,
    label,
    paused_changes,
    review_payload,
    severity_badge,
)

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

wb = shared.workbench()
result = shared.current_result(wb)
user = shared.user_id()
today = date.today()

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
        lambda live: wb.start(
            question, as_of=as_of, max_cycles=int(max_cycles), approve=policy, user_id=user, on_event=live
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
    st.markdown(
        f":{shared.STATUS_COLORS.get(result.status, 'gray')}-badge[{label(result.status)}] "
        f"· session `{tid}` · engine {md_escape(result.engine)}"
    )
    cols = st.columns(4)
    cols[0].metric("Quality score", "—" if result.quality_score is None else f"{result.quality_score:.2f}")
    cols[1].metric("Cycle", f"{result.evaluation_cycle} of {result.max_evaluation_cycles}")
    cols[2].metric("As of", result.as_of.isoformat() if result.as_of else "—")
    cols[3].metric("Approval", result.approval_policy)
    shared.show_run_log(tid)

    # ------------------------------------------------------------------------------------- review queue
    if wb.is_running(tid) or result.status == RUNNING:
        st.info(
            "A run is executing on this session (in another tab, or on another server). Refresh to see where it stands."
        )
        st.button("Refresh", icon=":material/refresh:")

    elif result.status == "awaiting_review" and result.pending_review:
        pending = result.pending_review
        cycle, proposals = pending["cycle"], pending["proposals"]
        staged = shared.staged_rows(tid, cycle)
        board = (
            paused_changes(result.identified_deficiencies, staged, [p["id"] for p in proposals])
            if staged
            else BoardChanges()
        )
        queue, draft = st.columns([3, 2], gap="large")
        with draft:
            st.markdown("**Draft under review**")
            with st.container(height=640, border=True):
                st.markdown(answer_markdown(pending["answer"]))
        with queue:
            st.info(
                f"Paused after cycle {cycle}: {len(proposals)} proposed correction(s) wait for your decision. "
                "Nothing is retrieved until you decide.",
                icon=":material/pending_actions:",
            )
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
            with st.form(f"review-{tid}-{cycle}"):
                cards = {}
                for p in proposals:
                    with st.container(border=True):
                        st.markdown(
                            f"{severity_badge(p['severity'])} **{label(p['deficiency_type'])}** · "
                            f"{md_escape(p['subject'])}"
                        )
                        st.markdown(md_escape(p["description"]))
                        st.caption(
                            f"{p['id']} · section {md_escape(p['section'] or '-')} · {p['attempts']} earlier attempt(s)"
                        )
                        action = st.radio(
                            "Decision",
                            list(ACTIONS),
                            format_func=ACTIONS.get,
                            horizontal=True,
                            key=f"action-{tid}-{cycle}-{p['id']}",
                        )
                        query = st.text_area(
                            "Correction query", value=p["query"], height=68, key=f"query-{tid}-{cycle}-{p['id']}"
                        )
                        if not p["query"]:
                            st.caption(
                                "No retrieval needed: the revision uses the corpus metadata. "
                                "Write a query to retrieve evidence instead."
                            )
                        note = st.text_input(
                            "Note", placeholder="Why (required when rejecting)", key=f"note-{tid}-{cycle}-{p['id']}"
                        )
                        cards[p["id"]] = (action, query, note)
                buttons = st.container(horizontal=True)
                submitted = buttons.form_submit_button("Submit decisions", type="primary", icon=":material/send:")
                approve_all = buttons.form_submit_button("Approve all", icon=":material/done_all:")
                stop = buttons.form_submit_button("Stop and finalize", icon=":material/stop_circle:")
        if submitted or approve_all or stop:
            decisions, errors = {}, []
            if submitted:
                for p in proposals:
                    decision, error = card_decision(p, *cards[p["id"]])
                    if error:
                        errors.append(error)
                    else:
                        decisions[p["id"]] = decision
            payload = review_payload(proposals, decisions, board, shared.reviewer(), cycle=cycle, stop=stop)
            for error in errors:
                st.error(md_escape(error))
            if not errors:
                shared.run_live("Resuming the loop…", lambda live: wb.resume(tid, payload, on_event=live, user_id=user))

    # ------------------------------------------------------------------------------------------- answer
    elif result.status == "completed":
        st.info(f"**Why the loop stopped:** {md_escape(result.termination_text)}", icon=":material/flag:")
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
                    "No residual deficiencies: every problem the critics found was resolved.",
                    icon=":material/verified:",
                )
        st.markdown("#### Answer")
        with st.container(border=True):
            st.markdown(answer_markdown(result.current_answer) or "_The loop produced no answer._")
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

    elif result.status == "interrupted":
        st.warning(
            "The last run on this session was cut off before it paused or finished (the server stopped "
            "mid-run). It can carry on from its last checkpoint.",
            icon=":material/warning:",
        )
        if st.button("Continue the run", type="primary", icon=":material/play_arrow:"):
            shared.run_live("Continuing the loop…", lambda live: wb.continue_run(tid, on_event=live, user_id=user))

    else:
        st.warning("This session holds no loop state (it failed before its first step). Ask the question again.")
