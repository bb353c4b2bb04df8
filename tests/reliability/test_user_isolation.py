"""With a user id (login on), each user sees and opens only their own sessions, through every service call.

Another user's session is reported exactly like a missing one, so its existence does not leak either.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from core.persistence.checkpoints import Persistence
from core.service import SessionNotFoundError, Workbench
from tests.fakes import KeywordStore
from tests.loop.corpora import RU_QUESTION, ruritania_corpus

AS_OF = "2026-11-30"


@pytest.fixture
def wb(tmp_path: Path, persistence: Persistence) -> Workbench:
    return Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=persistence)


def approve_all(result: Any) -> dict[str, Any]:
    return {
        "cycle": result.pending_review["cycle"],
        "decisions": {p["id"]: {"action": "approve"} for p in result.pending_review["proposals"]},
    }


def refused(call: Callable[[], object], thread_id: str) -> None:
    with pytest.raises(SessionNotFoundError) as info:
        call()
    assert str(info.value) == f"no session {thread_id}"


def test_each_user_sees_and_opens_only_their_own_sessions(wb: Workbench) -> None:
    run = uuid.uuid4().hex[:8]  # the Postgres database is shared by the whole test run
    alice, bob = f"alice-{run}@example.com", f"bob-{run}@example.com"
    alice_paused = wb.start(RU_QUESTION, as_of=AS_OF, user_id=alice)
    alice_done = wb.start(
        "What owner disclosure threshold applies in Ruritania?", as_of=AS_OF, approve="none", user_id=alice
    )
    bob_done = wb.start(RU_QUESTION, as_of=AS_OF, approve="all", user_id=bob)
    paused_id, done_id = alice_paused.thread_id, alice_done.thread_id
    target = alice_done.residual_deficiencies[0].id

    assert {s.thread_id for s in wb.sessions(user_id=alice)} == {paused_id, done_id}
    assert {s.thread_id for s in wb.sessions(user_id=bob)} == {bob_done.thread_id}
    assert wb.sessions(user_id=f"mallory-{run}@example.com") == []
    assert {paused_id, done_id, bob_done.thread_id} <= {s.thread_id for s in wb.sessions()}  # single-user mode

    for thread_id, call in [
        (paused_id, lambda: wb.show(paused_id, user_id=bob)),
        (paused_id, lambda: wb.resume(paused_id, approve_all(alice_paused), user_id=bob)),
        (paused_id, lambda: wb.continue_run(paused_id, user_id=bob)),
        (paused_id, lambda: wb.delete(paused_id, user_id=bob)),
        (done_id, lambda: wb.export(done_id, "md", user_id=bob)),
        (done_id, lambda: wb.export(done_id, "json", user_id=bob)),
        (done_id, lambda: wb.branch(done_id, 0, user_id=bob)),
        (
            done_id,
            lambda: wb.annotate(done_id, target, editor="bob", reason="mine now", accepted_risk=True, user_id=bob),
        ),
        (done_id, lambda: wb.verify_audit(done_id, user_id=bob)),
        ("nope-000000", lambda: wb.show("nope-000000", user_id=bob)),
    ]:
        refused(call, thread_id)

    # nothing bob tried changed alice's sessions or gave him one
    assert wb.show(paused_id, user_id=alice).status == "awaiting_review"
    after = wb.show(done_id, user_id=alice)
    assert not next(d for d in after.identified_deficiencies if d.id == target).accepted_risk
    assert {s.thread_id for s in wb.sessions(user_id=bob)} == {bob_done.thread_id}

    # alice can do all of it, and her branch is hers alone
    resumed = wb.resume(paused_id, approve_all(alice_paused), user_id=alice)
    assert resumed.thread_id == paused_id and resumed.evaluation_history[1].decisions
    assert b"Residual deficiencies" in wb.export(done_id, "md", user_id=alice)
    annotated = wb.annotate(
        done_id, target, editor="alice", reason="accepted for this client", accepted_risk=True, user_id=alice
    )
    assert next(d for d in annotated.identified_deficiencies if d.id == target).accepted_risk
    assert wb.verify_audit(done_id, user_id=alice)[0]
    branch = wb.branch(done_id, 0, user_id=alice)
    assert wb.show(branch, user_id=alice).evaluation_history[0] == alice_done.evaluation_history[0]
    refused(lambda: wb.show(branch, user_id=bob), branch)
    assert branch in {s.thread_id for s in wb.sessions(user_id=alice)}
    wb.delete(done_id, user_id=alice)
    refused(lambda: wb.show(done_id, user_id=alice), done_id)
    assert {s.thread_id for s in wb.sessions(user_id=alice)} == {paused_id, branch}
