"""Research: ask a question, watch the loop live, decide on its proposed corrections (ui/review_queue.py), read
the answer."""

from datetime import UTC, date, datetime
from typing import Any

import streamlit as st

from core.domain.limits import MAX_CYCLES, MIN_AS_OF, latest_as_of
from core.domain.safe_markdown import md_escape
from core.service import RunResult, SessionStatus
from ui import acts, evidence, live, shared
from ui.asking import DUPLICATE_WINDOW_S, recent_duplicate
from ui.frames import citation_frame, label, severity_badge
from ui.outcome import outcome_markdown
from ui.review_queue import review_queue, take_intent

POLICIES = {
    "manual": "Manual: I review every proposed correction",
    "severity>=high": "Auto-approve high and critical; I review the rest",
    "severity>=critical": "Auto-approve critical; I review the rest",
    "all": "Approve every correction automatically",
    "none": "Reject every correction (draft and critique only)",
}
EXAMPLE = (
    "e.g. Compare the record-keeping periods for customer due diligence files under the UK Money Laundering "
    "Regulations 2017 and MAS Notice PSN01."
)
"""The question box's placeholder: a neutral example, not one of the evaluation questions."""
PENDING_KEY = "ask-pending"
"""A Run held back because the same question was just asked: its inputs and the earlier session."""


def ask_form(result: RunResult | None) -> None:
    """The question form (cleared by "New question" and after a run starts); a Run of a question asked within
    the last minute asks first."""
    generation = st.session_state.get(shared.ASK_GENERATION_KEY, 0)
    today = date.today()
    with (
        st.expander("New research question", expanded=result is None, icon=":material/edit_note:"),
        st.form(f"ask-{generation}"),
    ):
        question = st.text_area(
            "Question",
            placeholder=EXAMPLE,
            max_chars=wb.settings.max_query_chars,
            height=100,
            key=f"question-{generation}",
        )
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
        inputs = {"question": question, "as_of": as_of, "max_cycles": int(max_cycles), "policy": policy}
        earlier = recent_duplicate(question, wb.sessions(user_id=shared.user_id()), datetime.now(UTC))
        if earlier is None:
            start(inputs)
        else:
            st.session_state[PENDING_KEY] = {**inputs, "earlier": earlier.thread_id}
    pending = st.session_state.get(PENDING_KEY)
    if pending is not None:
        duplicate_prompt(pending)


def duplicate_prompt(pending: dict[str, Any]) -> None:
    """Ask before a second session of a question asked moments ago: run it again, open the earlier one, or
    cancel."""
    st.warning(
        f"You asked this question less than {DUPLICATE_WINDOW_S} seconds ago (session `{pending['earlier']}`). "
        "Run it again as a new session?",
        icon=":material/content_copy:",
    )
    buttons = st.container(horizontal=True)
    if buttons.button("Run again", type="primary", icon=":material/play_arrow:"):
        st.session_state.pop(PENDING_KEY, None)
        start(pending)
    if buttons.button("Open the earlier session", icon=":material/folder_open:"):
        st.session_state.pop(PENDING_KEY, None)
        shared.set_thread(pending["earlier"])
        st.rerun()
    if buttons.button("Cancel"):
        st.session_state.pop(PENDING_KEY, None)
        st.rerun()


def start(inputs: dict[str, Any]) -> None:
    """Start the loop on the form's inputs with live progress; the form is cleared once the session exists."""

    def run(progress: live.LiveProgress) -> RunResult:
        result = wb.start(
            inputs["question"],
            as_of=inputs["as_of"],
            max_cycles=inputs["max_cycles"],
            approve=inputs["policy"],
            user_id=shared.user_id(),
            actor=shared.reviewer(),
            on_event=progress,
        )
        shared.clear_question_form()
        return result

    shared.run_live("Starting the loop…", run)


def header(result: RunResult) -> None:
    """The session's question, badge, score, cycle, as-of date and approval policy, and its last run's log."""
    st.subheader(md_escape(result.question))
    st.markdown(f"{shared.status_badge(result)} · session `{result.thread_id}` · engine {md_escape(result.engine)}")
    cols = st.columns(4)
    cols[0].metric("Quality score", "—" if result.quality_score is None else f"{result.quality_score:.2f}")
    cols[1].metric("Cycle", f"{result.evaluation_cycle} of {result.max_evaluation_cycles}")
    cols[2].metric("As of", result.as_of.isoformat() if result.as_of else "—")
    cols[3].metric("Approval", result.approval_policy)
    live.show_run_log(result.thread_id)


def running_note() -> None:
    st.info(
        "A run is executing on this session (in another tab, or on another server). Refresh to see where it stands."
    )
    st.button("Refresh", icon=":material/refresh:")


def residual_box(result: RunResult) -> None:
    """What the loop left unresolved (disclosed in every export), most severe first, or that nothing is left."""
    residual = sorted(result.residual_deficiencies, key=lambda d: -d.severity.rank)
    with st.container(border=True):
        if not residual:
            st.success("No residual deficiencies: nothing is left to disclose.", icon=":material/verified:")
            return
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


def finished_answer(result: RunResult) -> None:
    """Why the loop stopped, the residuals, the answer with its flags, the cited sources and each claim's
    evidence."""
    st.info(outcome_markdown(result.outcome), icon=":material/flag:")
    residual_box(result)
    st.markdown("#### Answer")
    with st.container(border=True):
        st.markdown(shared.flagged_answer(result) or "_The loop produced no answer._")
    st.markdown("#### Citations")
    citations = citation_frame(result)
    st.table(citations.set_index("document"))
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


def interrupted(result: RunResult) -> None:
    """A run cut off mid-way, with the button that carries it on from its last checkpoint."""
    st.warning(
        "The last run on this session was cut off before it paused or finished (the server stopped "
        "mid-run). It can carry on from its last checkpoint.",
        icon=":material/warning:",
    )
    if st.button("Continue the run", type="primary", icon=":material/play_arrow:"):
        user = shared.user_id()
        shared.run_live(
            "Continuing the loop…",
            lambda progress: wb.continue_run(result.thread_id, on_event=progress, user_id=user),
        )


def page(result: RunResult | None) -> None:
    """The question form, then the open session in the part its status calls for."""
    st.title("Research")
    ask_form(result)
    if result is None:
        st.caption(
            "The loop drafts an answer from the corpus, critiques it into deficiencies, and proposes a targeted "
            "correction for each; you approve, edit or reject them before any correction retrieval runs."
        )
        return
    header(result)
    running = wb.is_running(result.thread_id)
    paused = result.status == SessionStatus.awaiting_review and result.pending_review is not None
    intent = take_intent(result, paused and not running)
    if running or result.status == SessionStatus.running:
        running_note()
    elif paused:
        review_queue(wb, result, intent)
    elif result.status == SessionStatus.completed:
        finished_answer(result)
    elif result.status == SessionStatus.interrupted:
        interrupted(result)
    else:
        st.warning("This session holds no loop state (it failed before its first step). Ask the question again.")


wb = shared.workbench()
page(shared.current_result(wb))
