"""Board edits staged while a session waits for review, kept server-side so a reload or another tab keeps them
until the review is answered (the resume clears them) or the analyst discards them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core.domain.clock import utc_now
from core.service.base import WorkbenchBase

STAGED_NS = ("staged",)
"""Namespace of the staged board edits in the persistence store, keyed by thread id."""


class StagedEdits(BaseModel):
    """The paused board as the analyst left it: its rows, for the review of `cycle`, saved at `saved_at`."""

    thread_id: str
    cycle: int
    user_id: str
    saved_at: str = Field(default_factory=utc_now)
    rows: list[dict[str, Any]]


class Staging(WorkbenchBase):
    """Stage, read and discard a paused session's board edits (one set per session)."""

    def stage_edits(self, thread_id: str, edits: list[dict[str, Any]], user_id: str, *, cycle: int) -> StagedEdits:
        """Keep `edits` (the board's rows) for the review of `cycle`, replacing what was staged before."""
        self._owned(thread_id, user_id)
        staged = StagedEdits(thread_id=thread_id, cycle=cycle, user_id=user_id, rows=list(edits))
        self.persistence.store.put(STAGED_NS, thread_id, staged.model_dump(mode="json"), index=False)
        return staged

    def staged_edits(self, thread_id: str, user_id: str, *, cycle: int | None = None) -> StagedEdits | None:
        """What is staged on the session (None when nothing is, or only for another review than `cycle`)."""
        self._owned(thread_id, user_id)
        item = self.persistence.store.get(STAGED_NS, thread_id)
        if item is None:
            return None
        staged = StagedEdits.model_validate(item.value)
        return None if cycle is not None and staged.cycle != cycle else staged

    def discard_staged(self, thread_id: str, user_id: str) -> None:
        """Forget the session's staged edits (after a resume, or on the analyst's request)."""
        self._owned(thread_id, user_id)
        self.persistence.store.delete(STAGED_NS, thread_id)
