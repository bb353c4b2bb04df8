"""Sixteen sessions at once through core.service on one SQLite file and on Postgres; one run per session at a
time, within a process and across processes.

Each concurrent session must end exactly like the same question run alone (the offline engine is deterministic),
so lost or crossed state shows up as a different answer, deficiency list, reviewer or audit chain.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from core.domain.audit import verify_chain
from core.persistence.checkpoints import Persistence, _sqlite, memory_persistence
from core.service import RunResult, SessionBusyError, Workbench
from tests.fakes import KeywordStore
from tests.loop.corpora import RU_QUESTION, ruritania_corpus
from tests.reliability.conftest import PG_ENV

ROOT = Path(__file__).resolve().parents[2]

SESSIONS = 16
BASES = [
    RU_QUESTION,
    "What owner disclosure threshold applies in Ruritania?",
    "What owner disclosure threshold applies to a payment firm in Xylandia?",
    "What owner disclosure threshold applies to a savings club in Ruritania and Xylandia?",
]
MARKERS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "juliett",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
]
AS_OF = "2026-11-30"


def question(i: int) -> str:
    """A question per session, unique by its marker word, so a crossed state cannot look right by accident."""
    return f"{BASES[i % len(BASES)]} (file {MARKERS[i]})"


def drive(
    wb: Workbench, q: str, *, manual: bool, reviewer: str, user: str, on_event: Callable[..., None] | None = None
) -> list[RunResult]:
    """Start a session and approve every proposed correction until it finishes; every intermediate result."""
    results = [wb.start(q, as_of=AS_OF, approve="manual" if manual else "all", user_id=user, on_event=on_event)]
    while results[-1].status == "awaiting_review":
        proposals = results[-1].pending_review["proposals"]
        decisions = {p["id"]: {"action": "approve"} for p in proposals}
        results.append(
            wb.resume(
                results[-1].thread_id,
                {"cycle": results[-1].pending_review["cycle"], "decisions": decisions, "reviewer": reviewer},
                on_event=on_event,
                user_id=user,
            )
        )
    return results


def workbench(tmp_path: Any, store: KeywordStore, persistence: Persistence) -> Workbench:
    return Workbench(Settings(data_dir=tmp_path), store=store, persistence=persistence)


def test_sixteen_concurrent_sessions_complete_without_lost_or_crossed_state(
    tmp_path: Any, persistence: Persistence, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    store = KeywordStore(ruritania_corpus())
    alone = workbench(tmp_path, store, memory_persistence())
    expected = [drive(alone, question(i), manual=i % 2 == 1, reviewer="ref", user="ref")[-1] for i in range(SESSIONS)]

    wb = workbench(tmp_path, store, persistence)  # one Workbench per process, shared by every session (as the app does)
    user = f"load-{uuid.uuid4().hex[:8]}"
    start = threading.Barrier(SESSIONS)
    results: dict[int, list[RunResult]] = {}
    events: dict[int, list[str]] = {i: [] for i in range(SESSIONS)}
    errors: list[tuple[int, BaseException]] = []

    def session(i: int) -> None:
        try:
            start.wait(30)
            results[i] = drive(
                wb,
                question(i),
                manual=i % 2 == 1,
                reviewer=f"{user}-r{i}",
                user=user,
                on_event=lambda e: events[i].append(e.node),
            )
        except BaseException as exc:
            errors.append((i, exc))

    threads = [threading.Thread(target=session, args=(i,), name=f"session-{i}") for i in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a session thread hung"
    assert not errors, [f"session {i}: {type(e).__name__}: {e}" for i, e in errors]
    assert not [r.getMessage() for r in caplog.records if "locked" in r.getMessage().lower()]

    thread_ids = {results[i][-1].thread_id for i in range(SESSIONS)}
    assert len(thread_ids) == SESSIONS
    for i in range(SESSIONS):
        steps, ref = results[i], expected[i]
        final = steps[-1]
        assert {s.thread_id for s in steps} == {final.thread_id}
        assert final.status == "completed", (i, final.status)
        assert final.question == question(i)
        assert final.final_answer == ref.final_answer
        assert final.termination_reason == ref.termination_reason
        assert [d.id for d in final.identified_deficiencies] == [d.id for d in ref.identified_deficiencies]
        assert [h.overall_score for h in final.evaluation_history] == [h.overall_score for h in ref.evaluation_history]
        assert final.metrics["retrievals"] == ref.metrics["retrievals"]
        ok, message = verify_chain(final.audit_records)
        assert ok and message.startswith(f"{len(final.evaluation_history)} cycle records"), message
        decided = [d for h in final.evaluation_history for d in h.decisions]
        assert [(d.deficiency_id, d.action) for d in decided] == [
            (d.deficiency_id, d.action) for h in ref.evaluation_history for d in h.decisions
        ]
        expected_by = {f"{user}-r{i}"} if i % 2 else {"policy"}
        assert {d.decided_by for d in decided} <= expected_by  # no other session's reviewer leaked in
        assert {a.actor for a in final.human_acts} <= expected_by - {"policy"}
        for h in final.evaluation_history:
            ids = [d.deficiency_id for d in h.decisions]
            assert len(ids) == len(set(ids)), f"session {i} cycle {h.cycle_number}: a decision recorded twice"
        assert events[i][0] == "plan" and events[i][-1] == "finalize"

        stored = wb.show(final.thread_id, user_id=user)
        values = wb.graph().get_state({"configurable": {"thread_id": final.thread_id}}).values
        assert (values["session_id"], values["user_id"], values["original_query"]) == (
            final.thread_id,
            user,
            question(i),
        )
        assert stored.final_answer == final.final_answer and stored.evaluation_history == final.evaluation_history

    listed = wb.sessions(user_id=user)
    assert {s.thread_id for s in listed} == thread_ids
    assert {s.thread_id: s.question for s in listed} == {results[i][-1].thread_id: question(i) for i in range(SESSIONS)}
    assert all(s.status == "completed" and s.user_id == user for s in listed)


SAMPLE_QUESTIONS = [
    "Compare CDD requirements for money service businesses under EU AMLR 2024 and FinCEN's CDD Rule, focusing on "
    "beneficial ownership thresholds.",
    "Is there a 15% beneficial ownership threshold under the new EU AML package?",
    "What CDD thresholds apply to occasional transactions and transfers of funds for a remittance business in the EU, "
    "the UK and the US?",
    'Compare the definition of "control" for beneficial ownership under the US CDD Rule, the CTA Reporting Rule and '
    "the EU AMLR.",
]


def test_concurrent_sessions_on_the_real_edge_store_match_sequential_runs(tmp_path: Any, sample_store: Any) -> None:
    """Eight threads share one Qdrant Edge shard and the embedder (as one replica's users do) on one SQLite file."""
    persistence = _sqlite(Settings(data_dir=tmp_path))
    try:
        wb = Workbench(Settings(data_dir=tmp_path), store=sample_store, persistence=persistence)
        questions = [SAMPLE_QUESTIONS[i % len(SAMPLE_QUESTIONS)] for i in range(8)]
        alone = {q: wb.start(q, as_of=AS_OF, approve="all") for q in SAMPLE_QUESTIONS}
        gate = threading.Barrier(len(questions))
        out: dict[int, RunResult] = {}
        errors: list[BaseException] = []

        def session(i: int) -> None:
            try:
                gate.wait(30)
                out[i] = wb.start(questions[i], as_of=AS_OF, approve="all")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=session, args=(i,)) for i in range(len(questions))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        for i, q in enumerate(questions):
            r, ref = out[i], alone[q]
            assert r.status == "completed" and r.question == q
            assert r.final_answer == ref.final_answer
            assert [c.doc_id for c in r.citations] == [c.doc_id for c in ref.citations]
            assert verify_chain(r.audit_records)[0]
    finally:
        persistence.close()


def test_a_second_run_on_an_executing_session_is_refused(tmp_path: Any, persistence: Persistence) -> None:
    wb = workbench(tmp_path, KeywordStore(ruritania_corpus()), persistence)
    paused = wb.start(RU_QUESTION, as_of=AS_OF)
    tid = paused.thread_id
    decisions = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]}
    inside = threading.Event()
    release = threading.Event()
    outcome: list[RunResult] = []

    def hold(_event: Any) -> None:
        inside.set()
        release.wait(30)

    def first_run() -> None:
        outcome.append(wb.resume(tid, {"cycle": 0, "decisions": decisions, "reviewer": "first"}, on_event=hold))

    worker = threading.Thread(target=first_run)
    worker.start()
    try:
        assert inside.wait(30), "the first run never started"
        assert wb.is_running(tid)
        assert wb.show(tid).status == "running"
        for second in (
            lambda: wb.resume(tid, {"cycle": 0, "decisions": decisions, "reviewer": "second"}),
            lambda: wb.continue_run(tid),
            lambda: wb.delete(tid),
        ):
            with pytest.raises(SessionBusyError) as info:
                second()
            assert str(info.value) == f"session {tid} is already running; wait for it to pause or finish"
    finally:
        release.set()
        worker.join(60)
    assert not wb.is_running(tid)
    done = outcome[0]
    record = done.evaluation_history[1]
    assert sorted(d.deficiency_id for d in record.decisions) == sorted(decisions)
    assert {d.decided_by for d in record.decisions} == {"first"}
    assert verify_chain(done.audit_records)[0]


HOLD_RUN_LOCK = """
import sys
from core.config import Settings
from core.persistence.checkpoints import _postgres, _sqlite
data_dir, thread_id, url = sys.argv[1], sys.argv[2], sys.argv[3]
p = _postgres(url) if url else _sqlite(Settings(data_dir=data_dir))
with p.run_lock(thread_id) as acquired:
    print("held" if acquired else "busy", flush=True)
    sys.stdin.read()
"""


def _once_released(call: Any, within_s: float = 15.0) -> Any:
    """`call` once the lock of a killed holder is gone: the kernel drops a flock at once, but Postgres ends the
    dead client's backend (and its advisory lock) a moment later, longer on a loaded machine."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            return call()
        except SessionBusyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_a_session_running_in_another_process_is_refused_until_that_process_dies(
    tmp_path: Any, persistence: Persistence
) -> None:
    """The run lock spans processes (a flock next to the SQLite file, a Postgres advisory lock for replicas)."""
    wb = workbench(tmp_path, KeywordStore(ruritania_corpus()), persistence)
    paused = wb.start(RU_QUESTION, as_of=AS_OF)
    tid = paused.thread_id
    url = os.environ.get(PG_ENV, "") if persistence.backend == "postgres" else ""
    other = subprocess.Popen(
        [sys.executable, "-c", HOLD_RUN_LOCK, str(tmp_path), tid, url],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout.readline().strip() == "held"
        decisions = {
            "cycle": 0,
            "decisions": {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]},
        }
        for call in (lambda: wb.resume(tid, decisions), lambda: wb.delete(tid)):
            with pytest.raises(SessionBusyError) as info:
                call()
            assert str(info.value) == (
                f"session {tid} is already running in another process or replica; wait for it to pause or finish"
            )
        assert wb.show(tid).status == "awaiting_review"  # reading is never blocked
        assert not wb.is_running(tid)  # and the refusal left no lock behind in this process
    finally:
        other.send_signal(signal.SIGKILL)
        other.wait(30)
    resumed = _once_released(lambda: wb.resume(tid, decisions))  # the dead holder's lock went with it
    assert resumed.evaluation_history[1].decisions
