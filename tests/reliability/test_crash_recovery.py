"""SIGKILL in the middle of a cycle and at the review pause; a restarted process carries on from the checkpoint.

Real processes on the real path: each step runs in a fresh process (`python -m tests.reliability.crash_child`,
forked by the session's fork server so it starts with the app's modules imported) with the app's configuration
(Qdrant Edge store on the sample corpus, SQLite file or Postgres checkpoints) and is killed with SIGKILL; between
steps the test process plays the restarted app and inspects what was saved.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from core.domain.audit import verify_chain
from core.persistence.checkpoints import _postgres, _sqlite
from core.service import InputError, RunResult, Workbench
from tests.cli import CliResult
from tests.forkserver import ForkServer

ROOT = Path(__file__).resolve().parents[2]
Q1 = (
    "Compare CDD requirements for money service businesses under EU AMLR 2024 and FinCEN's CDD Rule, "
    "focusing on beneficial ownership thresholds."
)
AS_OF = "2026-11-30"
EDITED_QUERY = "AMLR beneficial owner 25% shareholding threshold"
CHILD_TIMEOUT_S = 180


def child_env(data_dir: Path, database_url: str | None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "WORKBENCH_ENGINE", "QDRANT_URL", "WORKBENCH_DATABASE_URL")
    }
    env.update({"WORKBENCH_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    if database_url:
        env["WORKBENCH_DATABASE_URL"] = database_url
    return env


def run_and_kill(
    forks: ForkServer, env: dict[str, str], log: Path, *args: str, until: Callable[[], bool] | None = None
) -> dict[str, Any]:
    """Run one crash_child step, wait for its first report (and for `until()`), then SIGKILL it; the report."""
    proc = forks.spawn(["-m", "tests.reliability.crash_child", *args], env=env, cwd=ROOT, stderr=log)
    watchdog = threading.Timer(CHILD_TIMEOUT_S, proc.kill)
    watchdog.start()
    try:
        line = proc.stdout.readline()
        deadline = time.monotonic() + 30
        while line and until is not None and not until():
            assert time.monotonic() < deadline, "the condition to kill at was never reached"
            time.sleep(0.05)
    finally:
        watchdog.cancel()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert line, f"the child reported nothing; its stderr:\n{log.read_text()[-3000:]}"
    return json.loads(line)


@contextmanager
def restarted(data_dir: Path, database_url: str | None) -> Iterator[Workbench]:
    """The test process as the restarted app; releases the Edge shard and connections for the next child."""
    settings = Settings(data_dir=data_dir, database_url=database_url, qdrant_url=None, qdrant_api_key=None)
    persistence = _postgres(database_url) if database_url else _sqlite(settings)
    wb = Workbench(settings, persistence=persistence)
    try:
        yield wb
    finally:
        wb.store().close()
        persistence.close()


def saved_task_writes(data_dir: Path, database_url: str | None, thread_id: str, channel: str) -> int:
    """Tasks of the step in progress whose writes to `channel` reached the checkpointer (no store needed)."""
    settings = Settings(data_dir=data_dir, database_url=database_url)
    persistence = _postgres(database_url) if database_url else _sqlite(settings)
    try:
        saved = persistence.checkpointer.get_tuple({"configurable": {"thread_id": thread_id}})
        return len({task for task, ch, _ in (saved.pending_writes or []) if ch == channel})
    finally:
        persistence.close()


def count_searches(wb: Workbench) -> list[str]:
    """The correction searches the Workbench's store runs from now on (the plan's retrieval uses `search_many`)."""
    store = wb.store()
    search = store.search
    queries: list[str] = []

    def counted(query: str, *args: Any, **kw: Any) -> Any:
        queries.append(query)
        return search(query, *args, **kw)

    store.search = counted
    return queries


def review_payload(proposals: list[dict[str, Any]]) -> tuple[dict[str, Any], list[tuple[str, str, str | None]]]:
    """Edit the first proposal's query, reject the last (when there are two or more), approve the rest."""
    decisions: dict[str, dict[str, Any]] = {p["id"]: {"action": "approve"} for p in proposals}
    decisions[proposals[0]["id"]] = {"action": "edit", "query": EDITED_QUERY}
    if len(proposals) > 1:
        decisions[proposals[-1]["id"]] = {"action": "reject", "note": "out of scope for this client"}
    expected = sorted((did, d["action"], d.get("query")) for did, d in decisions.items())
    return {"cycle": 0, "decisions": decisions, "reviewer": "carol"}, expected


def approved_to_the_end(wb: Workbench, tid: str, result: RunResult, user: str) -> RunResult:
    """Every later review approved (as carol) until the run completes; its audit chain must then verify, with
    each human decision recorded as one act."""
    while result.status == "awaiting_review":
        later = {p["id"]: {"action": "approve"} for p in result.pending_review["proposals"]}
        result = wb.resume(
            tid, {"cycle": result.pending_review["cycle"], "decisions": later, "reviewer": "carol"}, user_id=user
        )
    assert result.status == "completed"
    history = result.evaluation_history
    assert verify_chain(result.audit_records) == (
        True,
        f"{len(history)} cycle records and {len(result.human_acts)} human acts verified",
    )
    decided = [d for h in history for d in h.decisions if not d.automatic]
    assert len([a for a in result.human_acts if a.kind == "decision"]) == len(decided)  # each act once
    return result


def test_a_session_survives_sigkill_mid_cycle_and_at_the_review_pause(
    data_dir: Path, database_url: str | None, tmp_path: Path, fork_server: ForkServer
) -> None:
    env = child_env(data_dir, database_url)
    user = f"crash-{uuid.uuid4().hex[:8]}"

    # 1. killed in the first cycle: the draft is saved, the critique's result is not
    assert run_and_kill(fork_server, env, tmp_path / "1.log", "--block", "critique", "start", Q1, AS_OF, user) == {
        "event": "blocked",
        "node": "critique",
    }
    with restarted(data_dir, database_url) as wb:
        [listed] = wb.sessions(user_id=user)
        tid = listed.thread_id
        assert listed.status == "interrupted"  # stored as running, but nobody holds its run lock any more
        cut = wb.show(tid, user_id=user)
        assert cut.status == "interrupted" and cut.current_answer and cut.evaluation_history == []
        with pytest.raises(InputError, match="not waiting for a review .*continue the cut-off run"):
            wb.resume(tid, {})

    # 2. a new process continues from that checkpoint to the review pause and is killed while it waits
    paused = run_and_kill(fork_server, env, tmp_path / "2.log", "continue", tid)
    assert paused["event"] == "returned" and paused["status"] == "awaiting_review"
    assert [h["cycle_number"] for h in paused["evaluation_history"]] == [0]
    assert paused["current_answer"] == cut.current_answer  # the saved draft was reused, not redone
    proposals = paused["pending_review"]["proposals"]
    payload, expected_decisions = review_payload(proposals)
    with restarted(data_dir, database_url) as wb:
        waiting = wb.show(tid, user_id=user)
        assert waiting.status == "awaiting_review"
        assert [p["id"] for p in waiting.pending_review["proposals"]] == [p["id"] for p in proposals]

    # 3. another process answers the review and is killed during the parallel correction retrievals: the last
    #    one never finishes, the others are saved first
    approved = sum(d["action"] != "reject" for d in payload["decisions"].values())
    assert run_and_kill(
        fork_server,
        env,
        tmp_path / "3.log",
        "--block",
        "correct",
        "--block-at",
        str(approved),
        "resume",
        tid,
        json.dumps(payload),
        until=lambda: saved_task_writes(data_dir, database_url, tid, "pending_queries") == approved - 1,
    ) == {"event": "blocked", "node": "correct"}
    with restarted(data_dir, database_url) as wb:
        cut = wb.show(tid, user_id=user)
        assert cut.status == "interrupted" and cut.pending_review is None  # the answered review is not asked again
        with pytest.raises(InputError, match="not waiting for a review"):
            wb.resume(tid, payload)
        searched = count_searches(wb)
        result = wb.continue_run(tid, user_id=user)
        assert len(searched) == 1  # only the unfinished correction ran again
        result = approved_to_the_end(wb, tid, result, user)
        history = result.evaluation_history
        assert [h.cycle_number for h in history] == list(range(len(history)))
        first_review = history[1]
        assert sorted((d.deficiency_id, d.action, d.query) for d in first_review.decisions) == expected_decisions
        assert {d.decided_by for d in first_review.decisions} == {"carol"}
        by_id = {p["id"]: p for p in proposals}
        retrieved = sorted(
            d.query or by_id[d.deficiency_id]["query"] for d in first_review.decisions if d.action != "reject"
        )
        assert sorted(first_review.retrieval_queries_issued) == retrieved  # each approval retrieved exactly once
        assert result.metrics["retrievals"] == 1 + sum(len(h.retrieval_queries_issued) for h in history)
        if len(proposals) > 1:
            rejected = next(d for d in result.identified_deficiencies if d.id == proposals[-1]["id"])
            assert rejected.analyst_note == "out of scope for this client"
            assert rejected.resolution_status.value in ("dismissed", "resolved")  # resolved if another fix cured it
            assert rejected.resolution_attempt_count == 0  # never retried
        assert "human acts verified" in wb.export(tid, "md", user_id=user).decode()
        [listed] = wb.sessions(user_id=user)
        assert listed.status == "completed" and listed.thread_id == tid


def test_a_kill_after_the_parallel_corrections_are_saved_but_before_their_checkpoint_continues(
    data_dir: Path, database_url: str | None, tmp_path: Path, fork_server: ForkServer
) -> None:
    """Every correction's writes are saved, the checkpoint closing their step is not: the snapshot then has no
    `next` node, yet the run is cut off, continues without repeating a correction, and keeps the approvals."""
    env = child_env(data_dir, database_url)
    user = f"crash-{uuid.uuid4().hex[:8]}"
    paused = run_and_kill(fork_server, env, tmp_path / "1.log", "start", Q1, AS_OF, user)
    assert paused["status"] == "awaiting_review"
    tid = paused["thread_id"]
    proposals = paused["pending_review"]["proposals"]
    payload, expected_decisions = review_payload(proposals)
    approved = sum(d["action"] != "reject" for d in payload["decisions"].values())
    assert run_and_kill(
        fork_server,
        env,
        tmp_path / "2.log",
        "--block-checkpoint",
        "branch:to:revise",
        "resume",
        tid,
        json.dumps(payload),
        until=lambda: saved_task_writes(data_dir, database_url, tid, "pending_queries") == approved,
    ) == {"event": "blocked", "checkpoint": "branch:to:revise"}

    with restarted(data_dir, database_url) as wb:
        [listed] = wb.sessions(user_id=user)
        assert listed.status == "interrupted"
        cut = wb.show(tid, user_id=user)
        assert cut.status == "interrupted" and cut.pending_review is None
        searched = count_searches(wb)
        executed: list[str] = []
        result = wb.continue_run(tid, user_id=user, on_event=lambda e: executed.append(e.node))
        assert not searched and "revise" in executed  # no correction ran twice; the revision did
        result = approved_to_the_end(wb, tid, result, user)
        history = result.evaluation_history
        assert sorted((d.deficiency_id, d.action, d.query) for d in history[1].decisions) == expected_decisions
        assert len(history[1].retrieval_queries_issued) == approved  # each approval retrieved exactly once


def test_a_kill_before_the_first_checkpoint_leaves_a_continuable_session(
    data_dir: Path, database_url: str | None, tmp_path: Path, fork_server: ForkServer, cli: Callable[..., CliResult]
) -> None:
    """The session's list entry is written, its first checkpoint is not: no zombie, the run starts again."""
    env = child_env(data_dir, database_url)
    user = f"crash-{uuid.uuid4().hex[:8]}"
    assert run_and_kill(
        fork_server, env, tmp_path / "1.log", "--block-checkpoint", "__start__", "start", Q1, AS_OF, user
    ) == {"event": "blocked", "checkpoint": "__start__"}
    with restarted(data_dir, database_url) as wb:
        [listed] = wb.sessions(user_id=user)
        assert listed.status == "interrupted"
        assert wb.show(listed.thread_id, user_id=user).status == "interrupted"
    # the CLI's `resume` without --decisions is the way back from the command line (in-process: the restarted app)
    database = {"WORKBENCH_DATABASE_URL": database_url} if database_url else {}
    out = cli("resume", listed.thread_id, "--json", WORKBENCH_DATA_DIR=str(data_dir), **database)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["status"] == "awaiting_review" and result["question"] == Q1 and result["as_of"] == AS_OF
    assert result["approval_policy"] == "manual" and [h["cycle_number"] for h in result["evaluation_history"]] == [0]
    with restarted(data_dir, database_url) as wb:
        [listed] = wb.sessions(user_id=user)
        assert listed.status == "awaiting_review"
