"""`python -m core run ... --json` (in-process through core.cli.dispatch.main) with OPENAI_BASE_URL at the loopback server,
on the sample corpus."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.cli import CliResult
from tests.llm.loopback import FakeModel, LoopbackLLM

QUESTION = "Compare beneficial ownership thresholds under EU AMLR and FinCEN's CDD Rule."


def test_cli_run_uses_the_hybrid_engine_and_reports_llm_usage(
    llm_server: LoopbackLLM, tmp_path: Path, copy_sample_data: Callable[[Path], Path], cli: Callable[..., CliResult]
) -> None:
    """Run on the ingested sample corpus with --approve all: engine hybrid, an llm plan, a typed answer whose
    claims quote chunks, non-zero LLM calls and tokens."""
    llm_server.model = FakeModel()
    data = copy_sample_data(tmp_path / "data")
    out = cli(
        "run",
        QUESTION,
        "--approve",
        "all",
        "--as-of",
        "2026-11-30",
        "--json",
        WORKBENCH_DATA_DIR=str(data),
        OPENAI_BASE_URL=llm_server.base_url,
        WORKBENCH_LLM_MODEL="loopback-model",
    )
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
    modelled = [c for c in claims if c["written_by"] != "offline"]  # the offline reviser may cite metadata
    assert modelled and all(q["quote"] and "#" in q["chunk_id"] for c in modelled for q in c["citations"])
    assert all(q["doc_id"] for c in claims for q in c["citations"])
