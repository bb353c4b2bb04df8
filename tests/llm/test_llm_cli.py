"""`python -m core run ... --json` in a fresh process with OPENAI_BASE_URL at the loopback server (real corpus)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.llm.loopback import FakeModel, LoopbackLLM

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Compare beneficial ownership thresholds under EU AMLR and FinCEN's CDD Rule."


def test_cli_run_uses_the_hybrid_engine_and_reports_llm_usage(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    """Ingest the sample corpus, then run with --approve all: engine hybrid, an llm plan, a typed answer whose
    claims quote chunks, non-zero LLM calls and tokens."""
    llm_server.model = FakeModel()
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "OPENAI_BASE_URL": llm_server.base_url, "WORKBENCH_LLM_MODEL": "loopback-model",
           "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    for key in ("OPENAI_API_KEY", "WORKBENCH_ENGINE", "WORKBENCH_LLM_BUDGET_CALLS", "WORKBENCH_LLM_BUDGET_TOKENS"):
        env.pop(key, None)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=180)

    ingest = cli("ingest", "core/corpus")
    assert ingest.returncode == 0, ingest.stderr
    out = cli("run", QUESTION, "--approve", "all", "--as-of", "2026-11-30", "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["engine"] == "hybrid" and r["status"] == "completed" and r["termination_reason"]
    m = r["metrics"]
    assert m["llm_calls"] > 0 and m["prompt_tokens"] > 0 and m["completion_tokens"] > 0
    assert m["llm_calls"] == len(llm_server.requests)
    assert llm_server.schemas()[:3] == ["PlanOut", "AnswerOut", "FindingsOut"]
    assert all(rec["critics"] == ["llm", "rules"] and rec["llm_calls"] > 0 for rec in r["evaluation_history"])
    assert r["plan"]["planner"] == "llm" and {"EU", "US"} <= {j["code"] for j in r["plan"]["jurisdictions"]}
    claims = [c for s in r["answer"]["sections"] for c in s["claims"]]
    assert claims and all(q["quote"] and "#" in q["chunk_id"] for c in claims for q in c["citations"])
