"""The loop through `python -m core` on the sample corpus (real Qdrant Edge, real SQLite): `run` and `resume` in
processes forked from the test fork server, the other commands in-process through core.cli.dispatch.main (`cli` of
tests/conftest.py)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import early
from tests.cli import CliResult, fresh_env
from tests.forkserver import ForkServer, session_server
from tests.sample_data import sample_data

ROOT = Path(__file__).resolve().parents[2]
Q1 = (
    "Compare CDD requirements for money service businesses under EU AMLR 2024 and FinCEN's CDD Rule, "
    "focusing on beneficial ownership thresholds."
)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, copy_sample_data: Callable[[Path], Path]) -> Path:
    """The sample corpus in a data dir shared by the tests of this module (they only add sessions to it)."""
    return copy_sample_data(tmp_path_factory.mktemp("cli-loop") / "data")


@pytest.fixture
def env(data_dir: Path) -> dict[str, str]:
    """The environment of a `python -m core` process on that data dir."""
    return fresh_env(data_dir)


@pytest.fixture
def run_core(cli: Callable[..., CliResult], data_dir: Path) -> Callable[..., CliResult]:
    """`python -m core ARGS` in-process on that data dir."""
    return lambda *args: cli(*args, WORKBENCH_DATA_DIR=str(data_dir))


def run_in_a_process_of_its_own(tmp: Path) -> subprocess.CompletedProcess[str]:
    """Q1 approving everything through `python -m core run` in a process of its own, forked from the session's fork
    server, on a copy of the sample data: its exit code, stdout and stderr. (A fresh interpreter's start is the
    cli-ingest job's, tests/test_cli_corpus.py: each one costs seconds of CPU importing torch.)"""
    data = shutil.copytree(sample_data(tmp / "sample"), tmp / "data")
    args = ["-m", "core", "run", Q1, "--approve", "all", "--as-of", "2026-11-30", "--json"]
    server = session_server(ROOT, early.environment())
    child = server.spawn(args, env=fresh_env(data), cwd=ROOT, stderr=tmp / "run.err")
    stdout = child.stdout.read()
    code = child.wait()
    return subprocess.CompletedProcess(args, code, stdout, (tmp / "run.err").read_text())


early.job("cli-run", run_in_a_process_of_its_own)


@pytest.mark.early("cli-run")
def test_run_approve_all_json() -> None:
    """The one `run` in a process of its own: `python -m core run`, its exit code and JSON on stdout (an early
    job: it runs beside the tests before it)."""
    out = early.outcome("cli-run")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["status"] == "completed" and r["termination_reason"]
    assert len(r["evaluation_history"]) >= 2
    assert r["evaluation_history"][0]["deficiencies_found"]
    assert any(d["resolution_status"] == "resolved" for d in r["identified_deficiencies"])
    assert r["evaluation_history"][-1]["overall_score"] > r["evaluation_history"][0]["overall_score"]
    residual_ids = {d["id"] for d in r["residual_deficiencies"]}
    assert residual_ids == {d["id"] for d in r["identified_deficiencies"] if d["resolution_status"] != "resolved"}
    assert {"retrievals", "critic_calls", "llm_calls", "elapsed_s", "node_seconds"} <= set(r["metrics"])
    assert r["citations"] and "\n## " in "\n" + r["final_answer"]


def test_run_approve_none_leaves_every_deficiency_residual(run_core: Callable[..., CliResult]) -> None:
    r = json.loads(run_core("run", Q1, "--approve", "none", "--as-of", "2026-11-30", "--json").stdout)
    assert r["identified_deficiencies"]
    assert all(d["resolution_status"] == "dismissed" for d in r["identified_deficiencies"])
    assert len(r["residual_deficiencies"]) == len(r["identified_deficiencies"])
    assert r["metrics"]["retrievals"] == 1


def test_resume_after_the_process_is_killed_at_the_review_pause(
    env: dict[str, str],
    run_core: Callable[..., CliResult],
    tmp_path: Path,
    fork_server: ForkServer,
    opened_stores: list[Any],
) -> None:
    """A real process (from the fork server) starts Q1 and is killed at the review pause; `python -m core resume`
    continues it in another (forked from the same server), the other commands run in-process."""
    script = textwrap.dedent(f"""
        import sys, time
        from core.service import Workbench
        r = Workbench().start({Q1!r}, as_of="2026-11-30")
        print(r.thread_id, r.status, flush=True)
        time.sleep(600)
    """)
    proc = fork_server.spawn(["-c", script], env=env, cwd=ROOT, stderr=tmp_path / "start.log")
    try:
        thread_id, status = proc.stdout.readline().split()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert status == "awaiting_review"
    shown = json.loads(run_core("show", thread_id, "--json").stdout)
    assert shown["status"] == "awaiting_review"
    unnamed = tmp_path / "unnamed.json"
    unnamed.write_text(json.dumps({p["id"]: {"action": "approve"} for p in shown["pending_review"]["proposals"]}))
    refused = run_core("resume", thread_id, "--decisions", str(unnamed))
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert 'add "cycle": 0' in refused.stderr
    decisions = tmp_path / "decisions.json"
    decisions.write_text(
        json.dumps(
            {
                "cycle": shown["pending_review"]["cycle"],
                **{p["id"]: {"action": "approve"} for p in shown["pending_review"]["proposals"]},
            }
        )
    )
    for store in opened_stores:  # the in-process commands have ended: free the shard for the next process
        store.close()
    # `resume` in a process of its own (forked from the server that imported the app: the interpreter and import
    # costs of a fresh one are the cli-ingest job's to pay)
    resume = fork_server.spawn(
        ["-m", "core", "resume", thread_id, "--decisions", str(decisions), "--json"],
        env=env,
        cwd=ROOT,
        stderr=tmp_path / "resume.log",
    )
    out = resume.stdout.read()
    assert resume.wait() == 0, (tmp_path / "resume.log").read_text()
    r = json.loads(out)
    assert r["status"] in ("completed", "awaiting_review")
    first_decisions = r["evaluation_history"][1]["decisions"]
    assert len(first_decisions) == len(shown["pending_review"]["proposals"])
    stale = run_core("resume", thread_id, "--decisions", str(decisions))  # the same file again
    assert stale.returncode == 2 and len(stale.stderr.strip().splitlines()) == 1
    assert ("they are stale" if r["status"] == "awaiting_review" else "not waiting for a review") in stale.stderr
    listed = run_core("sessions", "--json")
    assert thread_id in {s["thread_id"] for s in json.loads(listed.stdout)}
    outcome = json.loads(run_core("show", thread_id, "--json").stdout)["outcome"]
    for text in (run_core("show", thread_id).stdout, run_core("sessions").stdout):  # one outcome, said the same
        assert outcome["badge"] in text and outcome["headline"] in text
    assert f"deficiencies: {r['outcome']['counts']['found']} deficienc" in run_core("show", thread_id).stdout
    md = run_core("export", thread_id, "--format", "md")
    assert md.returncode == 0 and "Residual deficiencies" in md.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "   "], "question is empty"),
        (["run", Q1, "--approve", "maybe"], "approval policy"),
        (["run", Q1, "--as-of", "2026-13-01"], "as-of date"),
        (["show", "nope"], "no session"),
        (["resume", "nope", "--decisions", "/nonexistent.json"], "does not exist"),
    ],
)
def test_bad_input_exits_2_with_one_line(run_core: Callable[..., CliResult], args: list[str], needle: str) -> None:
    out = run_core(*args)
    assert out.returncode == 2
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1
