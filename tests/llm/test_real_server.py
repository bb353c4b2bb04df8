"""The LLM engines against a real OpenAI-compatible model server (llama-cpp-python's, with a small real model).

The server's base URL comes from WORKBENCH_TEST_LLM_URL (`bash scripts/llm_server.sh start` prints it; .ci/run
starts one). Unset, the module is skipped locally and fails under CI (CI=true), so CI cannot pass without it.
The runs are kept short (the test corpus, one critique, small replies): every prompt token costs about 10 ms on
two cores.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from core.config import Settings
from core.domain.records import ModelCall
from core.engines.llm import LlmClient, LlmUnavailableError
from core.engines.llm.modes import MODES
from core.engines.llm.schemas import FindingsOut
from core.engines.text import quote_in
from core.persistence.checkpoints import memory_persistence
from core.service import Workbench
from tests.fakes import KeywordStore
from tests.llm.conftest import AS_OF, QUESTION, corpus, engine_ctx

URL = os.environ.get("WORKBENCH_TEST_LLM_URL", "").strip()
if not URL:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("WORKBENCH_TEST_LLM_URL is not set: CI must start the model server (.ci/run)", pytrace=False)
    pytest.skip("set WORKBENCH_TEST_LLM_URL to a running model server to run these tests", allow_module_level=True)

STRUCTURED = ("json_schema", "json_object", "tools")


@pytest.fixture(scope="module")
def model_name() -> str:
    """The id the server serves its model under."""
    with httpx.Client(trust_env=False, timeout=30) as http:
        return str(http.get(f"{URL.rstrip('/')}/models").json()["data"][0]["id"])


@pytest.fixture
def real_settings(model_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Settings]:
    """Settings for the real server: short replies, a small context, generous deadlines, no retries of a
    timeout (the default), one cycle."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")

    def make(**overrides: object) -> Settings:
        values: dict[str, object] = {
            "data_dir": tmp_path / "data",
            "openai_base_url": URL,
            "openai_api_key": None,
            "llm_model": model_name,
            "llm_max_tokens": 384,
            "llm_context_tokens": 3072,
            "llm_timeout_s": 180.0,
            "llm_deadline_s": 240.0,
            "llm_max_retries": 1,
            "max_cycles": 0,
        }
        values.update(overrides)
        return Settings(**values)

    return make


def test_auto_handles_the_servers_refusal_of_json_schema(real_settings: Callable[..., Settings]) -> None:
    """The server refuses strict json_schema; configured alone that is a refusal, not an outage; `auto` answers
    the same call in the next mode the server accepts, and remembers it."""
    settings = real_settings()
    MODES.forget((URL, settings.llm_model))
    strict = LlmClient(real_settings(llm_structured="json_schema"))
    with pytest.raises(LlmUnavailableError) as caught:
        strict.call("llm critic", FindingsOut, "Report deficiencies as JSON.", "The answer has no claims.")
    assert caught.value.reason == "structured output refused (json_schema)" and strict.breaker.failures == 0
    client = LlmClient(settings)
    value, usage, notes = client.call(
        "llm critic", FindingsOut, "Report deficiencies as JSON.", "The answer has no claims. Return an empty list."
    )
    assert isinstance(value, FindingsOut)
    (call,) = usage.calls
    assert call.outcome == "answered" and call.mode in ("json_object", "tools") and call.prompt_tokens > 0
    assert any("refused the json_schema mode" in n for n in notes)
    assert client.mode() == call.mode


@pytest.mark.parametrize("engine", ["llm", "hybrid"])
def test_the_full_loop_completes_with_every_call_answered_in_a_structured_mode(
    real_settings: Callable[..., Settings], engine: str
) -> None:
    """Plan, draft and critique by the model: the run completes, every call was answered in a structured mode
    with its tokens recorded, no prompt exceeded the budget, and every claim kept quotes its cited passage."""
    settings = real_settings(engine=engine)
    wb = Workbench(settings, store=KeywordStore(corpus()), persistence=memory_persistence())
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")
    assert r.status == "completed" and r.engine == engine
    calls: list[ModelCall] = [c for rec in r.evaluation_history for c in rec.model_calls]
    assert [c.role for c in calls] == ["planner", "drafter", "critic"]
    failed = [f"{c.role}: {c.reason}" for c in calls if c.outcome != "answered"]
    assert not failed, failed
    assert all(c.mode in STRUCTURED and c.prompt_tokens > 0 and c.completion_tokens > 0 for c in calls)
    assert all(c.prompt_tokens + settings.llm_max_tokens <= settings.llm_context_tokens for c in calls)
    assert any("model calls: planner in " in n for n in r.evaluation_history[0].notes)
    ctx = engine_ctx()
    for _, claim in r.answer.claims() if r.answer else []:
        if claim.written_by:
            continue  # hybrid: the offline drafter's claims quote by construction
        assert claim.citations and all(quote_in(q.quote, ctx.passage(q.chunk_id)) for q in claim.citations)
    assert r.written_by.startswith("Written by the model")
