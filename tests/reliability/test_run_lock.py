"""The Postgres run lock: a run that loses it stops before its next write, and runs beyond the connection pool
(or beyond what the server accepts) are refused cleanly, leaving no half-started session."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from core.config import Settings
from core.domain.audit import verify_chain
from core.persistence.checkpoints import Persistence, _postgres, run_slots
from core.service import RunLockLostError, RunResult, SessionBusyError, Workbench
from tests.fakes import KeywordStore
from tests.loop.corpora import RU_QUESTION, ruritania_corpus

AS_OF = "2026-11-30"
LOCK_HOLDER = """
SELECT pid FROM pg_locks
WHERE locktype = 'advisory' AND objsubid = 1 AND granted
  AND classid = ((hashtextextended(%(key)s, 0) >> 32) & 4294967295)::oid
  AND objid = (hashtextextended(%(key)s, 0) & 4294967295)::oid
"""


def saved(admin: psycopg.Connection, thread_id: str) -> tuple[int, int]:
    """Checkpoints and pending writes stored for the thread."""
    row = admin.execute(
        "SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = %(t)s), "
        "(SELECT count(*) FROM checkpoint_writes WHERE thread_id = %(t)s)",
        {"t": thread_id},
    ).fetchone()
    return int(row[0]), int(row[1])


def approve_all(result: RunResult) -> dict[str, Any]:
    return {
        "cycle": result.pending_review["cycle"],
        "decisions": {p["id"]: {"action": "approve"} for p in result.pending_review["proposals"]},
    }


@pytest.fixture
def pg(pg_url: str) -> Iterator[Persistence]:
    persistence = _postgres(pg_url)
    yield persistence
    persistence.close()


def test_a_run_that_loses_its_lock_stops_before_its_next_write(tmp_path: Path, pg_url: str, pg: Persistence) -> None:
    wb = Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=pg)
    paused = wb.start(RU_QUESTION, as_of=AS_OF, user_id=f"lock-{uuid.uuid4().hex[:8]}")
    tid = paused.thread_id
    at_drop: list[tuple[int, int]] = []

    def drop_the_lock(_event: Any) -> None:
        """After the first step of the resumed run: the server ends the lock's connection (as a network cut or
        an administrator would), so another replica could take the session over."""
        if at_drop:
            return
        with psycopg.connect(pg_url, autocommit=True) as admin:
            [(pid,)] = admin.execute(LOCK_HOLDER, {"key": f"workbench-run:{tid}"}).fetchall()
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            deadline = time.monotonic() + 10
            while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
                assert time.monotonic() < deadline, "the lock's backend did not end"
                time.sleep(0.05)
            assert admin.execute(LOCK_HOLDER, {"key": f"workbench-run:{tid}"}).fetchall() == []
            at_drop.append(saved(admin, tid))

    with pytest.raises(RunLockLostError, match=f"session {tid} lost its run lock .*stopped before its next write"):
        wb.resume(tid, approve_all(paused), on_event=drop_the_lock)
    with psycopg.connect(pg_url, autocommit=True) as admin:
        assert saved(admin, tid) == at_drop[0]  # not one checkpoint or pending write after the lock went
    assert not wb.is_running(tid)
    assert wb.show(tid).status == "interrupted"
    assert next(s for s in wb.sessions() if s.thread_id == tid).status == "interrupted"
    done = wb.continue_run(tid)  # what the process that takes the lock over does
    while done.status == "awaiting_review":
        done = wb.resume(tid, approve_all(done))
    assert done.status == "completed" and verify_chain(done.audit_records)[0]
    assert [d.deficiency_id for d in done.evaluation_history[1].decisions] == [
        p["id"] for p in paused.pending_review["proposals"]
    ]


def test_runs_beyond_the_pool_are_refused_cleanly(tmp_path: Path, pg_url: str) -> None:
    """A pool of 4 connections runs 3 sessions at once; a fourth start waits briefly, then is refused with a
    clear reason and leaves no session behind."""
    persistence = _postgres(pg_url, pool_size=4, wait_s=0.3)
    assert run_slots(4) == 3
    user = f"pool-{uuid.uuid4().hex[:8]}"
    wb = Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=persistence)
    release = threading.Event()
    results: list[RunResult] = []

    def run() -> None:
        results.append(wb.start(RU_QUESTION, as_of=AS_OF, user_id=user, on_event=lambda _e: release.wait(30)))

    workers = [threading.Thread(target=run) for _ in range(3)]
    try:
        for w in workers:
            w.start()
        deadline = time.monotonic() + 30
        while sum(wb.is_running(s.thread_id) for s in wb.sessions(user_id=user)) < 3:
            assert time.monotonic() < deadline, "the three runs never started"
            time.sleep(0.05)
        with pytest.raises(SessionBusyError, match="cannot run now: this process already runs 3 sessions"):
            wb.start(RU_QUESTION, as_of=AS_OF, user_id=user)
        assert len(wb.sessions(user_id=user)) == 3  # the refused start left nothing behind
    finally:
        release.set()
        for w in workers:
            w.join(60)
    assert [r.status for r in results] == ["awaiting_review"] * 3
    persistence.close()


def test_a_database_refusing_connections_refuses_the_run_cleanly(tmp_path: Path, pg_url: str) -> None:
    """The server's connection limit ("too many clients") reached while two runs hold one connection each: the
    next start is refused with a clear reason before anything about it is written; the running ones finish."""
    role = f"wb_limited_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 2")
        for grant in (
            "ALL ON SCHEMA public",
            "ALL ON ALL TABLES IN SCHEMA public",
            "ALL ON ALL SEQUENCES IN SCHEMA public",
        ):
            admin.execute(f"GRANT {grant} TO {role}")
    limited = psycopg.conninfo.make_conninfo(pg_url, user=role)
    persistence = _postgres(limited, pool_size=8, wait_s=0.5)
    user = f"limit-{uuid.uuid4().hex[:8]}"
    wb = Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=persistence)
    inside, release = threading.Semaphore(0), threading.Event()
    results: list[RunResult] = []

    def hold(_event: Any) -> None:
        inside.release()
        release.wait(30)

    workers = [
        threading.Thread(target=lambda: results.append(wb.start(RU_QUESTION, as_of=AS_OF, user_id=user, on_event=hold)))
        for _ in range(2)
    ]
    try:
        for w in workers:
            w.start()
        assert inside.acquire(timeout=30) and inside.acquire(timeout=30), "the two runs never started"
        with psycopg.connect(pg_url, autocommit=True) as admin:
            assert _connections(admin, role) == 2  # each run lives on its lock connection alone
            with pytest.raises(SessionBusyError, match="cannot run now: no database connection for the run"):
                wb.start(RU_QUESTION, as_of=AS_OF, user_id=user)
            assert _sessions_of(admin, user) == 2  # the refused start left nothing behind
    finally:
        release.set()
        for w in workers:
            w.join(60)
        persistence.close()
    assert [r.status for r in results] == ["awaiting_review"] * 2
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"DROP OWNED BY {role}")
        admin.execute(f"DROP ROLE {role}")


def _connections(admin: psycopg.Connection, role: str) -> int:
    return int(admin.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = %s", (role,)).fetchone()[0])


def _sessions_of(admin: psycopg.Connection, user: str) -> int:
    return int(
        admin.execute(
            "SELECT count(*) FROM store WHERE prefix = 'sessions' AND value->>'user_id' = %s", (user,)
        ).fetchone()[0]
    )


def test_threads_sharing_a_run_lock_connection_take_turns(pg: Persistence) -> None:
    """While a run holds its lock connection, its store writes (pipelined) and another thread's read of that
    session's checkpoint go through the same connection: they must take turns, never interleave a command into
    the other's pipeline ("another command is already in progress" failed a pool test under load)."""
    thread_id = f"turns-{uuid.uuid4().hex[:8]}"
    config = {"configurable": {"thread_id": thread_id}}
    errors: list[BaseException] = []
    with pg.run_lock(thread_id) as lease:
        assert lease.store is not None

        def write() -> None:
            try:
                for i in range(150):
                    lease.store.put(("turns", thread_id), f"k{i}", {"i": i})
            except BaseException as exc:
                errors.append(exc)

        def read() -> None:
            try:
                for _ in range(150):
                    pg.checkpointer.get_tuple(config)
                    lease.lost()
            except BaseException as exc:
                errors.append(exc)

        workers = [threading.Thread(target=write), threading.Thread(target=read)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        assert not lease.lost()
    assert errors == []
    assert len(pg.store.search(("turns", thread_id), limit=200)) == 150
