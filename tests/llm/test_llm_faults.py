"""Model faults through the whole loop: each recovery or termination reason is visible in evaluation_history."""

from __future__ import annotations

from typing import Callable

import pytest

from core.config import Settings
from core.engines.llm import DraftAnswer, LlmClient, LlmCritic, LlmDrafter
from core.service import Workbench
from tests.llm.conftest import AS_OF, QUESTION
from tests.llm.loopback import FakeModel, LoopbackLLM, closed_port, completion, error

SLOW = 0.25
"""Request timeout in the timeout cases; the slow reply takes four times as long."""

TRANSIENT = {
    "malformed JSON": (completion("{'sections': not json"), "malformed output"),
    "partial JSON": (completion('{"sections": [{"jurisdiction": "RU", "sentences": ['), "malformed output"),
    "truncated at the length limit": (completion('{"sections": [', finish_reason="length"), "truncated output"),
    "timeout": (completion('{"sections": []}', delay_s=4 * SLOW), "timeout"),
    "429 with Retry-After": (error(429, "slow down", {"Retry-After": "0.01"}), "HTTP 429"),
    "500": (error(500, "upstream exploded"), "HTTP 500"),
}


@pytest.mark.parametrize("fault", list(TRANSIENT))
def test_a_transient_drafter_fault_is_retried_and_recorded(
        llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench], fault: str) -> None:
    """One bad reply, then a good one: the draft is the model's, and the record shows the failed attempt."""
    reply, reason = TRANSIENT[fault]
    llm_server.push(reply)
    llm_server.model = FakeModel()
    r = llm_workbench(llm_timeout_s=SLOW).start(QUESTION, as_of=AS_OF, approve="all")
    assert r.status == "completed" and r.termination_reason == "no_open_deficiencies"
    assert llm_server.schemas()[:2] == ["DraftAnswer", "DraftAnswer"]
    notes = r.evaluation_history[0].notes
    assert f"llm drafter: attempt 1 failed: {reason}" in notes
    assert "llm drafter: recovered on attempt 2" in notes
    assert "[xy-guidance]" in r.final_answer


def test_connection_refused_falls_back_to_the_offline_engine_for_every_call(
        llm_settings: Callable[..., Settings], llm_workbench: Callable[..., Workbench]) -> None:
    """No server at all: the offline drafter writes, the rules critique, the session completes, 0 LLM calls."""
    wb = llm_workbench(openai_base_url=f"http://127.0.0.1:{closed_port()}/v1")
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")
    assert r.engine == "hybrid" and r.status == "completed" and not r.termination_reason.startswith("degraded")
    assert r.metrics["llm_calls"] == 0
    first = r.evaluation_history[0]
    assert first.critics == ("rules",)
    assert "llm drafter unavailable (connection failed); the offline drafter wrote this draft" in first.notes
    assert "llm critic unavailable (connection failed); the rules critic covered this cycle" in first.notes
    assert sum("attempt" in n and "connection failed" in n for n in first.notes) == 6  # 3 drafter + 3 critic
    assert "[ru-act]" in r.final_answer


def test_a_refusing_critic_is_not_retried_and_the_rules_cover_the_cycle(
        llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]) -> None:
    """A refusal would repeat at temperature 0: one attempt, then the rule critic covers that cycle."""
    llm_server.model = FakeModel(skip_jurisdictions=("XY",), findings=[completion(None, refusal="I cannot help.")])
    r = llm_workbench().start(QUESTION, as_of=AS_OF, approve="all")
    assert llm_server.schemas() == ["DraftAnswer", "CritiqueFindings", "DraftAnswer", "CritiqueFindings"]
    first, second = r.evaluation_history
    assert first.critics == ("rules",) and second.critics == ("llm", "rules")
    assert "llm critic: attempt 1 failed: refusal: I cannot help." in first.notes
    assert "llm critic unavailable (refusal); the rules critic covered this cycle" in first.notes
    assert first.llm_calls == 2 and first.prompt_tokens == 240  # the refused completion is still accounted
    assert r.termination_reason == "no_open_deficiencies"


def test_a_critic_failing_with_500_on_every_attempt_degrades_to_the_rules(
        llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]) -> None:
    """Bounded: 1 + llm_max_retries attempts, then the rules; the next cycle uses the model again."""
    llm_server.model = FakeModel(skip_jurisdictions=("XY",), findings=[error(500, "down")] * 3)
    r = llm_workbench().start(QUESTION, as_of=AS_OF, approve="all")
    assert llm_server.schemas().count("CritiqueFindings") == 4
    first = r.evaluation_history[0]
    assert [n for n in first.notes if n.startswith("llm critic: attempt")] == [
        f"llm critic: attempt {i} failed: HTTP 500" for i in (1, 2, 3)]
    assert first.critics == ("rules",) and r.evaluation_history[1].critics == ("llm", "rules")
    assert r.termination_reason == "no_open_deficiencies"


def _dead_client(settings: Settings) -> LlmClient:
    return LlmClient(settings.model_copy(update={"openai_base_url": f"http://127.0.0.1:{closed_port()}/v1"}))


class _BrokenDrafter:
    name = "broken"

    def draft(self, *args: object) -> None:
        raise RuntimeError("fallback drafter broke too")


@pytest.mark.parametrize("fallback", [None, _BrokenDrafter()], ids=["no fallback", "fallback fails"])
def test_a_drafter_without_a_working_fallback_ends_the_loop_degraded_llm(
        llm_settings: Callable[..., Settings], llm_workbench: Callable[..., Workbench],
        fallback: object) -> None:
    """Nothing can write the answer: the loop ends with degraded_llm, the session is kept and readable."""
    wb = llm_workbench()
    wb.drafter = LlmDrafter(_dead_client(llm_settings()), fallback=fallback)  # type: ignore[arg-type]
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")
    assert r.status == "completed" and r.termination_reason == "degraded_llm"
    assert "drafting failed: llm drafter: connection failed (after 3 attempts)" in r.evaluation_history[0].notes
    assert wb.show(r.thread_id).termination_reason == "degraded_llm"


def test_a_bare_llm_critic_failure_ends_the_loop_degraded_llm(
        llm_server: LoopbackLLM, llm_settings: Callable[..., Settings],
        llm_workbench: Callable[..., Workbench]) -> None:
    """Without the rule critic behind it, an unavailable model critic ends the loop honestly, keeping the draft."""
    llm_server.model = FakeModel()
    wb = llm_workbench()
    wb.critic = LlmCritic(_dead_client(llm_settings()))
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")
    assert r.termination_reason == "degraded_llm"
    assert r.evaluation_history[0].notes[-1].startswith("critic failed: llm critic: connection failed")
    assert "[ru-act]" in r.final_answer


def test_retry_after_is_respected_but_capped(llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]) -> None:
    """Waits: Retry-After seconds, retry-after-ms, capped at llm_max_wait_s; exponential backoff otherwise."""
    waits: list[float] = []
    client = LlmClient(llm_settings(llm_max_retries=4, llm_backoff_s=0.01, llm_max_wait_s=0.5), sleep=waits.append)
    llm_server.push(error(429, "slow", {"Retry-After": "0.2"}), error(429, "slow", {"retry-after-ms": "30"}),
                    error(429, "slow", {"Retry-After": "120"}), error(503, "busy"))
    llm_server.model = FakeModel()
    value, usage, notes = client.call("test", DraftAnswer, "system", "user")
    assert waits == [0.2, 0.03, 0.5, 0.08]
    assert value == DraftAnswer(sections=[]) and usage.llm_calls == 1 and notes[-1] == "test: recovered on attempt 5"

def test_a_client_error_is_not_retried(llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]) -> None:
    """401/400 would fail again: a single attempt, then the offline drafter writes the draft."""
    llm_server.push(error(401, "bad key"))
    llm_server.model = FakeModel()
    r = llm_workbench().start(QUESTION, as_of=AS_OF, approve="all")
    assert llm_server.schemas()[:2] == ["DraftAnswer", "CritiqueFindings"]
    assert "llm drafter unavailable (HTTP 401); the offline drafter wrote this draft" in r.evaluation_history[0].notes

