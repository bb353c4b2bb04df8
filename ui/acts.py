"""The analyst's acts on a session from the pages: strike a claim from a finished answer, confirm (or not) that a
deficiency they added is resolved, after the run or in the review. Each goes through the service, which records it
as a human act in the audit chain under the reviewer's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from core.domain.deficiencies import awaiting_confirmation
from core.domain.safe_markdown import md_escape
from core.service import InputError, RunResult, SessionBusyError, Workbench, claim_id
from ui import shared
from ui.frames import label, severity_badge

CONFIRM_CHOICES = {"confirm": "Yes, resolved", "reopen": "No: retry its correction"}


def _act(call: Callable[[], object], done: str) -> None:
    """Run one act; on success forget this rerun's reads, say what was done and rerun, else show why not."""
    try:
        call()
    except (InputError, SessionBusyError) as exc:
        st.error(md_escape(str(exc)))
        return
    shared.forget_reads()
    shared.flash(done)
    st.rerun()


def strike_form(wb: Workbench, result: RunResult, cid: str) -> None:
    """Strike claim `cid` from the finished answer, with a reason (required)."""
    with st.form(f"strike-{result.thread_id}-{cid}", border=False):
        reason = st.text_input(
            "Why strike this claim", placeholder="e.g. out of scope, or not what the source says", key=f"why-{cid}"
        )
        if st.form_submit_button("Strike this claim", icon=":material/format_strikethrough:"):
            _act(
                lambda: wb.strike_claim(
                    result.thread_id, cid, editor=shared.reviewer(), reason=reason, user_id=shared.user_id()
                ),
                f"Struck claim {cid} from the answer; the exports list it as struck.",
            )


def strike_panel(wb: Workbench, result: RunResult) -> None:
    """After the run, on the board: pick any claim of the answer and strike it, with a reason."""
    claims = {claim_id(code, c): f"{code} · {c.text}" for code, c in result.answer.claims()} if result.answer else {}
    if not claims:
        return
    expander = st.expander("Strike a claim from the answer", icon=":material/format_strikethrough:")
    with expander, st.form(f"strike-any-{result.thread_id}", border=False):
        cid = st.selectbox("Claim", list(claims), format_func=claims.get, key=f"strike-pick-{result.thread_id}")
        reason = st.text_input("Why strike it", key=f"strike-why-{result.thread_id}")
        if st.form_submit_button("Strike the claim", icon=":material/format_strikethrough:") and cid:
            _act(
                lambda: wb.strike_claim(
                    result.thread_id, cid, editor=shared.reviewer(), reason=reason, user_id=shared.user_id()
                ),
                f"Struck claim {cid} from the answer; the exports list it as struck.",
            )


def confirm_panel(wb: Workbench, result: RunResult) -> None:
    """After the run: ask about each deficiency the analyst added whose correction ran whether it is resolved."""
    waiting = awaiting_confirmation(result.identified_deficiencies)
    if not waiting:
        return
    st.markdown("#### Deficiencies you added: are they resolved?")
    st.caption("No critic re-checks a deficiency you added: it stays disclosed until you confirm it.")
    for d in waiting:
        with st.container(border=True), st.form(f"confirm-{result.thread_id}-{d.id}", border=False):
            st.markdown(
                f"{severity_badge(d.severity.value)} **{label(d.deficiency_type.value)}** · "
                f"{md_escape(d.subject)} · section {md_escape(d.affected_section or '-')}  \n{md_escape(d.description)}"
            )
            reason = st.text_input("Why", key=f"confirm-why-{d.id}", placeholder="What you checked (required)")
            yes, no = st.columns(2)
            resolved = yes.form_submit_button("Resolved", icon=":material/check_circle:", type="primary")
            not_resolved = no.form_submit_button("Not resolved", icon=":material/cancel:")
            if resolved or not_resolved:
                _act(
                    lambda d=d, ok=resolved, why=reason: wb.confirm_deficiency(
                        result.thread_id,
                        d.id,
                        resolved=ok,
                        editor=shared.reviewer(),
                        reason=why,
                        user_id=shared.user_id(),
                    ),
                    f"{d.id} recorded as {'resolved' if resolved else 'not resolved'}.",
                )


def review_strikes(result: RunResult, cycle: int) -> list[dict[str, str]]:
    """In a review: claims of the draft to strike with the review's answer, and why (the revision keeps them out)."""
    claims = {claim_id(code, c): f"{code} · {c.text}" for code, c in result.answer.claims()} if result.answer else {}
    if not claims:
        return []
    with st.expander("Strike claims from the draft", icon=":material/format_strikethrough:"):
        chosen = st.multiselect(
            "Claims to strike", list(claims), format_func=claims.get, key=f"review-strike-{result.thread_id}-{cycle}"
        )
        reason = st.text_input("Why strike them", key=f"review-strike-why-{result.thread_id}-{cycle}").strip()
        if chosen and not reason:
            st.caption("Give a reason: claims are struck only with one.")
    return [{"claim_id": cid, "reason": reason} for cid in chosen] if reason else []


def confirmation_cards(thread_id: str, cycle: int, confirmations: Sequence[Mapping[str, Any]]) -> dict[str, dict]:
    """In a review: one card per deficiency the analyst added whose correction ran; the answered ones as review
    decisions (`confirm` or `reopen`, with the note). An unanswered card leaves the deficiency to the next review."""
    if confirmations:
        st.markdown("**Deficiencies you added, whose correction ran: are they resolved?**")
    decided: dict[str, dict] = {}
    for p in confirmations:
        with st.container(border=True):
            st.markdown(
                f"{severity_badge(p['severity'])} **{label(p['deficiency_type'])}** · {md_escape(p['subject'])}  \n"
                f"{md_escape(p['description'])}"
            )
            action = st.radio(
                "Resolved?",
                list(CONFIRM_CHOICES),
                index=None,
                format_func=CONFIRM_CHOICES.get,
                horizontal=True,
                key=f"confirm-{thread_id}-{cycle}-{p['id']}",
            )
            note = st.text_input("Note", key=f"confirm-note-{thread_id}-{cycle}-{p['id']}")
            if action:
                decided[p["id"]] = {"action": action, "note": note.strip()}
    return decided
