"""Changes a person makes to a finished session: annotations (note, accepted risk, severity), the confirmation of
a deficiency they added, and striking a claim from the answer. Each is a human act chained into the session's
audit trail; the answer, its disclosure and the list entry's outcome counts are brought up to date with it."""

from __future__ import annotations

from typing import Any

from core.domain.answer import strike
from core.domain.audit import added_act, annotation_acts, chain_head, confirmation_act, sealed_acts, strike_act
from core.domain.clock import utc_now
from core.domain.deficiencies import Event, apply, awaiting_confirmation, residual
from core.domain.inputs import InputError, cap, clean_text
from core.domain.limits import MAX_NOTE_CHARS
from core.domain.outcome import SessionStatus
from core.domain.records import AnalystDeficiency, Deficiency, HumanActRecord, Severity
from core.domain.results import RunResult
from core.loop.deps import final_text, rendered
from core.loop.review import analyst_deficiency
from core.loop.state import merge_deficiencies
from core.service.sessions import Sessions


def _who_and_why(editor: str, reason: str, what: str) -> tuple[str, str]:
    """The editor's name and the reason, cleaned and capped; both are required."""
    editor, reason = clean_text(editor).strip(), clean_text(reason).strip()
    cap(reason, MAX_NOTE_CHARS, "the reason")
    if not editor or not reason:
        raise InputError(f"{what} needs the editor's name and a reason")
    return editor, reason


class Amendments(Sessions):
    """The after-the-run part of the Workbench."""

    def annotate(
        self,
        thread_id: str,
        deficiency_id: str,
        *,
        editor: str,
        reason: str,
        note: str | None = None,
        accepted_risk: bool | None = None,
        severity: str | None = None,
        user_id: str | None = None,
    ) -> RunResult:
        """After a run: record a note / accepted risk / severity on a deficiency; each changed field is a human act
        (old -> new, editor, reason, time) chained into the session's audit trail. A change of nothing is refused."""
        editor, reason = _who_and_why(editor, reason, "an annotation")
        note = clean_text(note) if note is not None else None
        cap(note, MAX_NOTE_CHARS, "the note")
        if severity is not None and severity not in {s.value for s in Severity}:
            raise InputError(f"severity must be one of {', '.join(s.value for s in Severity)}, not {severity!r}")
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._finished(thread_id, meta, "annotations")
            before = _deficiency(current, deficiency_id)
            update: dict[str, Any] = {}
            if note is not None:
                update["analyst_note"] = note
            if accepted_risk is not None:
                update["accepted_risk"] = accepted_risk
            if severity is not None:
                update["severity"] = Severity(severity)
            changed = before.model_copy(update=update)
            acts = annotation_acts(before, changed, editor, reason, _last_cycle(current))
            if not acts:
                raise InputError(f"the annotation changes nothing on {deficiency_id}")
            self._amend(thread_id, current, acts, f"{editor} annotated {deficiency_id}: {reason}", changed=[changed])
        return self.show(thread_id)

    def confirm_deficiency(
        self,
        thread_id: str,
        deficiency_id: str,
        *,
        resolved: bool,
        editor: str,
        reason: str,
        user_id: str | None = None,
    ) -> RunResult:
        """After a run: the analyst says whether a deficiency they added, whose correction ran, is resolved. Yes
        resolves it; no opens it again (a failed attempt: unresolvable once the attempts reach the limit), and it
        stays disclosed."""
        editor, reason = _who_and_why(editor, reason, "a confirmation")
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._finished(thread_id, meta, "confirmations")
            before = _deficiency(current, deficiency_id)
            if before not in awaiting_confirmation(current.identified_deficiencies):
                raise InputError(
                    f"{deficiency_id} does not wait for a confirmation ({before.resolution_status.value}, added by "
                    f"{before.origin}): only a deficiency you added, whose correction ran, is confirmed"
                )
            event = Event.confirmed if resolved else Event.not_confirmed
            after = apply(before, event, self.settings.unresolvable_after)
            act = confirmation_act(before, after, editor, reason, _last_cycle(current))
            verdict = "resolved" if resolved else "not resolved"
            self._amend(
                thread_id, current, [act], f"{editor} found {deficiency_id} {verdict}: {reason}", changed=[after]
            )
        return self.show(thread_id)

    def strike_claim(
        self, thread_id: str, claim_id: str, *, editor: str, reason: str, user_id: str | None = None
    ) -> RunResult:
        """After a run: remove a claim (by `core.domain.answer.claim_id`) from the answer, why; it is listed as
        struck in the exports, and each plan item it answered that no other claim answers becomes a gap."""
        editor, reason = _who_and_why(editor, reason, "striking a claim")
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._finished(thread_id, meta, "claims")
            found = current.answer.find(claim_id) if current.answer is not None else None
            if current.answer is None or found is None:
                raise InputError(f"the answer of session {thread_id} holds no claim {claim_id}")
            section, claim = found
            answer = strike(current.answer, current.plan, claim_id, reason, editor, utc_now())
            act = strike_act(claim_id, claim.text, section, editor, reason, _last_cycle(current))
            self._amend(thread_id, current, [act], f"{editor} struck {claim_id}: {reason}", answer=answer)
        return self.show(thread_id)

    def _finished(self, thread_id: str, meta: dict[str, Any], what: str) -> RunResult:
        """The session as stored, refused unless it has finished (while paused, edits travel with the review)."""
        current = self._stored(thread_id, meta)
        if current.status != SessionStatus.completed:
            raise InputError(f"{what} are changed on finished sessions; while paused, edits travel with the review")
        return current

    def _amend(
        self,
        thread_id: str,
        current: RunResult,
        acts: list[HumanActRecord],
        message: str,
        *,
        changed: list[Deficiency] | None = None,
        answer: Any = None,
    ) -> None:
        """Write the acts and their effect after the session's finalize step: changed deficiencies, the residuals
        and their disclosure, the answer when it changed; then the list entry's edits and outcome counts."""
        deficiencies = merge_deficiencies(current.identified_deficiencies, changed or [])
        left = residual(deficiencies)
        text = current.current_answer
        update: dict[str, Any] = {}
        if answer is not None:
            cited = set(answer.cited_doc_ids())
            citations = [c for c in current.citations if c.doc_id in cited]
            text = rendered(answer, current.plan, citations) if current.plan else text
            update = {"answer": answer, "current_answer": text, "citations": citations}
        self.graph().update_state(
            {"configurable": {"thread_id": thread_id}},
            {
                **update,
                "identified_deficiencies": changed or [],
                "residual_deficiencies": left,
                "final_answer": final_text(text, left),
                "messages": [{"role": "analyst", "content": message}],
                "human_acts": sealed_acts(acts, chain_head(current.audit_records)),
            },
            as_node="finalize",
        )
        meta = self._session(thread_id)
        edits = [
            *meta.get("edits", []),
            *({"editor": a.actor, "reason": a.reason, "deficiency_id": a.deficiency_id, "at": a.at} for a in acts),
        ]
        now = self._stored(thread_id, meta)
        counts = now.counts.model_dump(mode="json")
        self._save_session(thread_id, {**meta, "edits": edits, "updated_at": utc_now(), "counts": counts})

    def add_residual(
        self,
        thread_id: str,
        added: AnalystDeficiency,
        *,
        editor: str,
        reason: str,
        user_id: str | None = None,
    ) -> RunResult:
        """After a run: record a deficiency the analyst found as a residual (no new loop runs; no correction is
        tried). It is an `added` human act in the audit chain and is disclosed with the other residuals in every
        export. A deficiency the session already holds (same type and subject) is refused."""
        editor, reason = _who_and_why(editor, reason, "a deficiency added after the run")
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._finished(thread_id, meta, "deficiencies added after the run")
            cycle = _last_cycle(current)
            found = analyst_deficiency(added, cycle)
            if any(d.id == found.id for d in current.identified_deficiencies):
                raise InputError(f"session {thread_id} already holds {found.id} ({found.subject})")
            d: Deficiency = found.model_copy(update={"analyst_note": added.note or reason})
            act = added_act(d, reason, editor, cycle, utc_now())
            self._amend(thread_id, current, [act], f"{editor} added {d.id} after the run: {reason}", changed=[d])
        return self.show(thread_id)


def _deficiency(current: RunResult, deficiency_id: str) -> Deficiency:
    found = next((d for d in current.identified_deficiencies if d.id == deficiency_id), None)
    if found is None:
        raise InputError(f"no deficiency {deficiency_id} in session {current.thread_id}")
    return found


def _last_cycle(current: RunResult) -> int:
    return current.evaluation_history[-1].cycle_number if current.evaluation_history else 0
