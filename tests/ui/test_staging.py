"""Staged board edits (core.service.staging): kept server-side per session and owner, replaced, discarded, and
cleared by the resume that takes them."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.persistence.checkpoints import memory_persistence
from core.service import RunResult, SessionNotFoundError, Workbench

ROWS = [{"id": "D-1", "severity": "high", "note": "check"}]


@pytest.fixture
def bench(tmp_path: object) -> Workbench:
    wb = Workbench(Settings(data_dir=tmp_path), persistence=memory_persistence())
    wb._save_session("t1", {"question": "q", "user_id": "ann"})
    return wb


def test_staged_edits_are_kept_until_discarded(bench: Workbench) -> None:
    assert bench.staged_edits("t1", "ann") is None
    saved = bench.stage_edits("t1", ROWS, "ann", cycle=0)
    again = bench.staged_edits("t1", "ann")
    assert again == saved and again.rows == ROWS and again.cycle == 0 and again.saved_at
    bench.stage_edits("t1", [], "ann", cycle=0)
    assert bench.staged_edits("t1", "ann").rows == []
    bench.discard_staged("t1", "ann")
    assert bench.staged_edits("t1", "ann") is None


def test_edits_staged_for_another_review_are_not_offered(bench: Workbench) -> None:
    bench.stage_edits("t1", ROWS, "ann", cycle=0)
    assert bench.staged_edits("t1", "ann", cycle=1) is None
    assert bench.staged_edits("t1", "ann", cycle=0) is not None


def test_another_users_session_cannot_be_staged_or_read(bench: Workbench) -> None:
    bench.stage_edits("t1", ROWS, "ann", cycle=0)
    for call in (
        lambda: bench.stage_edits("t1", ROWS, "bob", cycle=0),
        lambda: bench.staged_edits("t1", "bob"),
        lambda: bench.discard_staged("t1", "bob"),
        lambda: bench.staged_edits("nosuch", "ann"),
    ):
        with pytest.raises(SessionNotFoundError):
            call()
    assert bench.staged_edits("t1", "ann").rows == ROWS


def test_a_resume_clears_the_staged_edits(wb: Workbench, q1_paused: RunResult) -> None:
    tid = q1_paused.thread_id
    wb.stage_edits(tid, ROWS, "local", cycle=0)
    wb.resume(tid, {"cycle": 0, "decisions": {}, "stop": True}, user_id="local")
    assert wb.staged_edits(tid, "local") is None


def test_deleting_a_session_drops_its_staged_edits(wb: Workbench, q1_paused: RunResult) -> None:
    tid = q1_paused.thread_id
    wb.stage_edits(tid, ROWS, "local", cycle=0)
    wb.delete(tid)
    assert wb.persistence.store.get(("staged",), tid) is None
