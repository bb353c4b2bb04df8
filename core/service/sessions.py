"""Reading and keeping sessions: show, list, verify, annotate, export and delete, with per-user access."""

from __future__ import annotations

from typing import Any

from core.domain.audit import added_act, annotation_acts, chain_head, sealed_acts, verify_chain
from core.domain.clock import utc_now
from core.domain.deficiencies import residual
from core.domain.inputs import InputError, cap, clean_text
from core.domain.limits import MAX_NOTE_CHARS
from core.domain.records import AnalystDeficiency, Deficiency, Severity
from core.domain.results import COMPLETED, EMPTY, FAILED, INTERRUPTED, RUNNING, RunResult, SessionSummary, entry_status
from core.domain.stop_reasons import describe
from core.loop.deps import final_text
from core.loop.review import analyst_deficiency
from core.persistence.heartbeat import alive_sessions, beats_alive
from core.service.base import SESSIONS_NS, WorkbenchBase
from core.service.staging import STAGED_NS


class Sessions(WorkbenchBase):
    """The session half of the Workbench."""

    def show(self, thread_id: str, *, user_id: str | None = None) -> RunResult:
        """The session as stored (works across processes and after a crash).

        Status `running` while a run executes in this or another process or replica (by its heartbeat);
        `interrupted` when a run was cut off (the process stopped mid-run): `continue_run` carries it on from its
        last checkpoint.
        """
        result = self._stored(thread_id, self._owned(thread_id, user_id))
        if result.status == INTERRUPTED and (self.is_running(thread_id) or beats_alive(self.persistence, thread_id)):
            result.status = RUNNING
        return result

    def sessions(self, *, user_id: str | None = None) -> list[SessionSummary]:
        """Sessions newest first; only the user's own when a user is given. One listed as running whose run no
        process or replica keeps alive (no fresh heartbeat) was cut off."""
        items = self.persistence.store.search(SESSIONS_NS, limit=10_000)
        alive = alive_sessions(self.persistence)
        out = []
        for item in items:
            value = item.value
            if user_id is not None and value.get("user_id", "local") != user_id:
                continue
            summary = SessionSummary(
                thread_id=item.key,
                **{
                    k: value.get(k)
                    for k in SessionSummary.model_fields
                    if k != "thread_id" and value.get(k) is not None
                },
            )
            if summary.termination_reason:
                summary.termination_text = describe(summary.termination_reason)
            if summary.status == RUNNING and not (self.is_running(item.key) or item.key in alive):
                status = entry_status(value, self._has_checkpoint(item.key))
                summary = summary.model_copy(update={"status": status})
            elif summary.status == EMPTY:  # written before sessions kept their inputs
                summary = summary.model_copy(update={"status": FAILED})
            out.append(summary)
        return sorted(out, key=lambda s: s.created_at, reverse=True)

    def verify_audit(self, thread_id: str, *, user_id: str | None = None) -> tuple[bool, str]:
        """Check the session's audit chain: cycle records and human acts."""
        return verify_chain(self.show(thread_id, user_id=user_id).audit_records)

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
        editor, reason = clean_text(editor).strip(), clean_text(reason).strip()
        note = clean_text(note) if note is not None else None
        cap(note, MAX_NOTE_CHARS, "the note")
        cap(reason, MAX_NOTE_CHARS, "the reason")
        if not editor or not reason:
            raise InputError("an annotation needs the editor's name and a reason")
        if severity is not None and severity not in {s.value for s in Severity}:
            raise InputError(f"severity must be one of {', '.join(s.value for s in Severity)}, not {severity!r}")
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._stored(thread_id, meta)
            if current.status != COMPLETED:
                raise InputError(
                    "annotations are made on finished sessions; while paused, edits travel with the review"
                )
            found = [d for d in current.identified_deficiencies if d.id == deficiency_id]
            if not found:
                raise InputError(f"no deficiency {deficiency_id} in session {thread_id}")
            update: dict[str, Any] = {}
            if note is not None:
                update["analyst_note"] = note
            if accepted_risk is not None:
                update["accepted_risk"] = accepted_risk
            if severity is not None:
                update["severity"] = Severity(severity)
            changed = found[0].model_copy(update=update)
            cycle = current.evaluation_history[-1].cycle_number if current.evaluation_history else 0
            acts = annotation_acts(found[0], changed, editor, reason, cycle)
            if not acts:
                raise InputError(f"the annotation changes nothing on {deficiency_id}")
            deficiencies = [changed if d.id == deficiency_id else d for d in current.identified_deficiencies]
            left = residual(deficiencies)
            self.graph().update_state(
                {"configurable": {"thread_id": thread_id}},
                {
                    "identified_deficiencies": [changed],
                    "residual_deficiencies": left,
                    "final_answer": final_text(current.current_answer, left),
                    "messages": [{"role": "analyst", "content": f"{editor} annotated {deficiency_id}: {reason}"}],
                    "human_acts": sealed_acts(acts, chain_head(current.audit_records)),
                },
                as_node="finalize",
            )
            meta = self._session(thread_id)
            edits = [
                *meta.get("edits", []),
                {"editor": editor, "reason": reason, "deficiency_id": deficiency_id, "at": utc_now()},
            ]
            self._save_session(thread_id, {**meta, "edits": edits, "updated_at": utc_now()})
        return self.show(thread_id)

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
        editor, reason = clean_text(editor).strip(), clean_text(reason).strip()
        cap(reason, MAX_NOTE_CHARS, "the reason")
        if not editor or not reason:
            raise InputError("a deficiency added after the run needs the editor's name and a reason")
        meta = self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            current = self._stored(thread_id, meta)
            if current.status != COMPLETED:
                raise InputError(
                    "deficiencies are added after the run on finished sessions; while paused, add them to the review"
                )
            cycle = current.evaluation_history[-1].cycle_number if current.evaluation_history else 0
            found = analyst_deficiency(added, cycle)
            if any(d.id == found.id for d in current.identified_deficiencies):
                raise InputError(f"session {thread_id} already holds {found.id} ({found.subject})")
            d: Deficiency = found.model_copy(update={"analyst_note": added.note or reason})
            acts = [added_act(d, reason, editor, cycle, utc_now())]
            left = residual([*current.identified_deficiencies, d])
            self.graph().update_state(
                {"configurable": {"thread_id": thread_id}},
                {
                    "identified_deficiencies": [d],
                    "residual_deficiencies": left,
                    "final_answer": final_text(current.current_answer, left),
                    "messages": [{"role": "analyst", "content": f"{editor} added {d.id} after the run: {reason}"}],
                    "human_acts": sealed_acts(acts, chain_head(current.audit_records)),
                },
                as_node="finalize",
            )
            meta = self._session(thread_id)
            edits = [
                *meta.get("edits", []),
                {"editor": editor, "reason": reason, "deficiency_id": d.id, "at": utc_now()},
            ]
            self._save_session(thread_id, {**meta, "edits": edits, "updated_at": utc_now()})
        return self.show(thread_id)

    def delete(self, thread_id: str, *, user_id: str | None = None) -> None:
        """Remove a session's checkpoints, its list entry and its staged board edits."""
        self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            self.persistence.checkpointer.delete_thread(thread_id)
            self.persistence.store.delete(SESSIONS_NS, thread_id)
            self.persistence.store.delete(STAGED_NS, thread_id)

    def export(self, thread_id: str, fmt: str, *, user_id: str | None = None) -> bytes:
        """The session rendered as md, json or docx."""
        return self.export_result(self.show(thread_id, user_id=user_id), fmt)

    def export_result(self, result: RunResult, fmt: str) -> bytes:
        """A session already read (`show`) rendered as md, json or docx, its whole audit chain checked."""
        from core.export import render

        ok, message = verify_chain(result.audit_records)
        return render(result, fmt, audit_ok=ok, audit_message=message)
