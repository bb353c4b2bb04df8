"""Running sessions are known from their heartbeats: fresh while a process or replica runs them, stale (or from a
dead process of this host) once the run was cut off, and read without probing any run lock."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from core.persistence import heartbeat
from core.persistence.checkpoints import Persistence, _postgres, _sqlite
from core.persistence.heartbeat import HEARTBEAT_TIMEOUT_S, HEARTBEATS_NS, Heartbeat
from core.service import SESSIONS_NS, Workbench, base
from tests.fakes import KeywordStore
from tests.forkserver import ForkServer
from tests.loop.corpora import RU_QUESTION, ruritania_corpus
from tests.reliability.conftest import postgres_url
from tests.reliability.test_crash_recovery import (
    AS_OF,
    CHILD_TIMEOUT_S,
    Q1,
    ROOT,
    child_env,
)


class CutOff(Exception):
    """Raised from a progress callback: the run stops as if its process had died mid-run."""


def another_replica(tmp_path: Path, persistence: Persistence) -> Workbench:
    """A Workbench on its own Persistence over the same database (what another replica opens)."""
    same = _postgres(postgres_url()) if persistence.backend == "postgres" else _sqlite(Settings(data_dir=tmp_path))
    return Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=same)


@pytest.fixture
def cut_off(tmp_path: Path, persistence: Persistence) -> tuple[Workbench, str]:
    """A session whose run was cut off after its draft, and the Workbench that ran it."""
    wb = Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=persistence)
    before = {s.thread_id for s in wb.sessions()}

    def die_after_draft(event: Any) -> None:
        if event.node == "draft":
            raise CutOff

    with pytest.raises(CutOff):
        wb.start(RU_QUESTION, as_of=AS_OF, on_event=die_after_draft)
    (tid,) = {s.thread_id for s in wb.sessions()} - before
    return wb, tid


def mark_running(persistence: Persistence, thread_id: str, beat: Heartbeat) -> None:
    """What a replica running the session has written: its list entry says running, its heartbeat is `beat`."""
    entry = persistence.store.get(SESSIONS_NS, thread_id).value
    persistence.store.put(SESSIONS_NS, thread_id, {**entry, "status": "running"}, index=False)
    persistence.store.put(HEARTBEATS_NS, thread_id, beat.model_dump(), index=False)


@pytest.fixture
def replica(tmp_path: Path, persistence: Persistence) -> Iterator[Workbench]:
    other = another_replica(tmp_path, persistence)
    yield other
    other.persistence.close()


def test_a_fresh_heartbeat_from_another_replica_shows_running(
    cut_off: tuple[Workbench, str], replica: Workbench
) -> None:
    wb, tid = cut_off
    mark_running(wb.persistence, tid, Heartbeat(at=time.time(), host="replica-2.internal", pid=4242))
    assert next(s for s in replica.sessions() if s.thread_id == tid).status == "running"
    assert replica.show(tid).status == "running"
    assert not replica.is_running(tid)  # known from the heartbeat alone, not from a lock in this process


def test_a_stale_heartbeat_shows_interrupted(cut_off: tuple[Workbench, str], replica: Workbench) -> None:
    wb, tid = cut_off
    stale = time.time() - HEARTBEAT_TIMEOUT_S - 1
    mark_running(wb.persistence, tid, Heartbeat(at=stale, host="replica-2.internal", pid=4242))
    assert next(s for s in replica.sessions() if s.thread_id == tid).status == "interrupted"
    assert replica.show(tid).status == "interrupted"


def test_a_heartbeat_of_a_dead_process_on_this_host_shows_interrupted_at_once(
    cut_off: tuple[Workbench, str], replica: Workbench
) -> None:
    wb, tid = cut_off
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mark_running(wb.persistence, tid, Heartbeat(at=time.time(), host=heartbeat._HOST, pid=dead.pid))
    assert replica.show(tid).status == "interrupted"
    assert next(s for s in replica.sessions() if s.thread_id == tid).status == "interrupted"


def test_listing_sessions_probes_no_run_lock(
    cut_off: tuple[Workbench, str], replica: Workbench, monkeypatch: pytest.MonkeyPatch
) -> None:
    wb, tid = cut_off
    mark_running(wb.persistence, tid, Heartbeat(at=time.time(), host="replica-2.internal", pid=4242))

    def no_probe(thread_id: str) -> Any:
        raise AssertionError(f"the run lock of {thread_id} was probed")

    monkeypatch.setattr(replica.persistence, "run_lock", no_probe)
    assert next(s for s in replica.sessions() if s.thread_id == tid).status == "running"


def test_the_heartbeat_is_refreshed_while_the_lock_is_held_and_removed_after(
    tmp_path: Path, persistence: Persistence, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heartbeat, "HEARTBEAT_INTERVAL_S", 0.05)
    wb = Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=persistence)
    tid = f"beat-{uuid.uuid4().hex[:8]}"

    def stamp() -> float:
        return persistence.store.get(HEARTBEATS_NS, tid).value["at"]

    with wb._exclusive(tid):
        first = stamp()
        deadline = time.monotonic() + 10
        while stamp() == first:
            assert time.monotonic() < deadline, "the heartbeat was never refreshed"
            time.sleep(0.02)
        assert tid in heartbeat.alive_sessions(persistence)
    assert persistence.store.get(HEARTBEATS_NS, tid) is None
    assert not [t for t in threading.enumerate() if t.name == f"heartbeat-{tid}"]


def test_the_in_process_lock_registry_keeps_only_what_is_held(tmp_path: Path, persistence: Persistence) -> None:
    wb = Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=persistence)
    done = wb.start(RU_QUESTION, as_of=AS_OF, approve="all")
    assert done.status == "completed"
    assert done.thread_id not in base._held
    with base.thread_lock("held-now"):
        assert base._held >= {"held-now"}
    assert "held-now" not in base._held


def test_a_run_in_another_process_shows_running_until_that_process_dies(
    data_dir: Path, database_url: str | None, tmp_path: Path, fork_server: ForkServer
) -> None:
    """A real second process (from the fork server) parks in its critique while holding the run lock: this
    process (another replica of the app) lists and shows the session as running from its heartbeat, and as cut
    off once it is killed."""
    user = f"beat-{uuid.uuid4().hex[:8]}"
    child = fork_server.spawn(
        ["-m", "tests.reliability.crash_child", "--block", "critique", "start", Q1, AS_OF, user],
        env=child_env(data_dir, database_url),
        cwd=ROOT,
        stderr=tmp_path / "child.log",
    )
    watchdog = threading.Timer(CHILD_TIMEOUT_S, child.kill)
    watchdog.start()
    settings = Settings(data_dir=data_dir, database_url=database_url, qdrant_url=None, qdrant_api_key=None)
    persistence = _postgres(database_url) if database_url else _sqlite(settings)
    wb = Workbench(settings, persistence=persistence)  # never opens the corpus: the child holds it
    try:
        line = child.stdout.readline()
        assert json.loads(line) == {"event": "blocked", "node": "critique"}, (tmp_path / "child.log").read_text()
        [listed] = wb.sessions(user_id=user)
        assert listed.status == "running"
        assert wb.show(listed.thread_id, user_id=user).status == "running"
    finally:
        watchdog.cancel()
        child.send_signal(signal.SIGKILL)
        child.wait()
    try:
        [listed] = wb.sessions(user_id=user)
        assert listed.status == "interrupted"
        assert wb.show(listed.thread_id, user_id=user).status == "interrupted"
    finally:
        persistence.close()


def test_a_run_writes_its_first_and_last_heartbeat_on_its_own_connection(tmp_path: Path, pg_url: str) -> None:
    """With every pooled connection taken, the run's start and end do not wait for one: the first beat and its
    removal go through the run's lock connection; only the refreshes in between use the pool."""
    persistence = _postgres(pg_url)
    pooled: list[str] = []

    def pool_exhausted() -> Any:
        pooled.append("asked")
        raise TimeoutError("no pooled connection")

    persistence.pooled_store = pool_exhausted
    wb = Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=persistence)
    seen: list[set[str]] = []
    try:
        done = wb.start(
            RU_QUESTION,
            as_of=AS_OF,
            approve="all",
            on_event=lambda _event: seen.append(heartbeat.alive_sessions(persistence)),
        )
        assert done.status == "completed" and seen and all(done.thread_id in alive for alive in seen)
        assert not heartbeat.beats_alive(persistence, done.thread_id) and pooled == []
    finally:
        persistence.close()
