"""Reading and keeping sessions: show, list, verify, export and delete, with per-user access (changes after a
run are in core.service.amend)."""

from __future__ import annotations

from core.domain.audit import verify_chain
from core.domain.outcome import SessionStatus
from core.domain.results import RunResult, SessionSummary, entry_status
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
        cut_off = result.status == SessionStatus.interrupted
        if cut_off and (self.is_running(thread_id) or beats_alive(self.persistence, thread_id)):
            result.status = SessionStatus.running
        return result

    def sessions(self, *, user_id: str | None = None) -> list[SessionSummary]:
        """Sessions newest first; only the user's own when a user is given. One listed as running whose run no
        process or replica keeps alive (no fresh heartbeat) was cut off. Each carries the outcome counts its list
        entry keeps (read from its checkpoint for an entry written before they were kept)."""
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
            if summary.status == SessionStatus.running and not (self.is_running(item.key) or item.key in alive):
                status = entry_status(value, self._has_checkpoint(item.key))
                summary = summary.model_copy(update={"status": status})
            elif summary.status == SessionStatus.empty:  # written before sessions kept their inputs
                summary = summary.model_copy(update={"status": SessionStatus.failed})
            if summary.counts is None and self._has_checkpoint(item.key):
                summary = summary.model_copy(update={"counts": self._stored(item.key, value).counts})
            if summary.termination_reason:
                summary = summary.model_copy(update={"termination_text": summary.outcome.reason})
            out.append(summary)
        return sorted(out, key=lambda s: s.created_at, reverse=True)

    def verify_audit(self, thread_id: str, *, user_id: str | None = None) -> tuple[bool, str]:
        """Check the session's audit chain: cycle records and human acts."""
        return verify_chain(self.show(thread_id, user_id=user_id).audit_records)

    def delete(self, thread_id: str, *, user_id: str | None = None) -> None:
        """Remove a session's checkpoints, its list entry and its staged board edits."""
        self._owned(thread_id, user_id)
        with self._exclusive(thread_id):
            self.persistence.checkpointer.delete_thread(thread_id)
            self.persistence.store.delete(SESSIONS_NS, thread_id)
            self.persistence.store.delete(STAGED_NS, thread_id)

    def export(self, thread_id: str, fmt: str, *, user_id: str | None = None, exported_by: str = "") -> bytes:
        """The session rendered as md, json or docx."""
        return self.export_result(self.show(thread_id, user_id=user_id), fmt, exported_by=exported_by)

    def export_result(self, result: RunResult, fmt: str, *, exported_by: str = "") -> bytes:
        """A session already read (`show`) rendered as md, json or docx, its whole audit chain checked; the export
        names who made it (`exported_by`, the reviewer's name; `local` when none is given)."""
        from core.export import render

        ok, message = verify_chain(result.audit_records)
        return render(result, fmt, audit_ok=ok, audit_message=message, exported_by=exported_by or "local")
