"""Model faults at the client: retries and what they record, the wall-clock deadline against a dripping server,
the deadline of a whole call, the circuit breaker, and how the engines degrade when the model is unavailable."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace

import httpx
import openai
import pytest

from core.config import Settings
from core.engines.llm import LlmClient, LlmCritic, LlmDrafter, LlmPlanner, LlmUnavailableError
from core.engines.llm.schemas import AnswerOut, FindingsOut
from core.engines.offline import OfflinePlanner
from core.service import Workbench
from tests.llm.conftest import (
    AS_OF,
    QUESTION,
    BlankDrafter,
    FloorPlanner,
    engine_ctx,
    hits_for,
    two_country_plan,
)
from tests.llm.loopback import FakeModel, LoopbackLLM, closed_port, completion, error, structured, user_text

SLOW = 0.25
"""Per-attempt budget in the timeout cases; the slow reply takes four times as long."""
EMPTY = {"deficiencies": []}

TRANSIENT = {
    "malformed JSON": (completion("{'deficiencies': not json"), "malformed output"),
    "partial JSON": (completion('{"deficiencies": [{"deficiency_type": "outdated_source", '), "malformed output"),
    "truncated at the length limit": (  # the reply used all of its tokens (the default cap): not a full context
        completion('{"deficiencies": [', finish_reason="length", completion_tokens=4096),
        "truncated output",
    ),
    "429 with Retry-After": (error(429, "slow down", {"Retry-After": "1"}), "HTTP 429"),
    "500": (error(500, "upstream exploded"), "HTTP 500"),
}


@pytest.mark.parametrize("fault", list(TRANSIENT))
def test_a_transient_fault_is_retried_and_recorded(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings], fault: str
) -> None:
    """One bad reply, then a good one: the call succeeds and its notes show the failed attempt."""
    reply, reason = TRANSIENT[fault]
    llm_server.push(reply, structured(EMPTY))
    value, _usage, notes = LlmClient(llm_settings()).call("llm critic", FindingsOut, "s", "u")
    assert value.deficiencies == [] and len(llm_server.requests) == 2
    assert notes == (f"llm critic: attempt 1 failed: {reason}", "llm critic: recovered on attempt 2")
    first, second = (user_text(r) for r in llm_server.requests)
    if reason in ("malformed output", "truncated output"):  # at temperature 0 the same request would fail again
        assert second.startswith(first) and "Your previous reply was" in second.removeprefix(first)
    else:
        assert second == first


def test_a_reply_cut_again_after_the_nudge_ends_the_call(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """A model that runs to its limit again when the retry asks for a shorter reply will not shorten it: two
    attempts, not all four, and the notes say why the call stopped."""
    cut_reply = completion('{"deficiencies": [', finish_reason="length", completion_tokens=4096)
    llm_server.push(cut_reply, cut_reply, cut_reply, cut_reply)
    with pytest.raises(LlmUnavailableError) as caught:
        LlmClient(llm_settings(llm_max_retries=3)).call("llm critic", FindingsOut, "s", "u")
    assert len(llm_server.requests) == 2 and caught.value.attempts == 2
    assert caught.value.reason == "truncated output"
    assert caught.value.notes[-1] == (
        "llm critic: asked for a shorter reply, the model ran to the limit again: no more attempts"
    )


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (error(401, "bad key"), "HTTP 401: Error code: 401"),
        (completion(None, refusal="I cannot help."), "refusal: I cannot help."),
    ],
    ids=["401", "refusal"],
)
def test_a_reply_that_would_repeat_is_not_retried(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings], reply: object, reason: str
) -> None:
    """4xx and refusals would fail again at temperature 0: one attempt; a refused completion is still accounted."""
    llm_server.push(reply)  # type: ignore[arg-type]
    with pytest.raises(LlmUnavailableError) as caught:
        LlmClient(llm_settings()).call("llm critic", FindingsOut, "s", "u")
    assert len(llm_server.requests) == 1 and caught.value.attempts == 1
    assert caught.value.notes[0].startswith(f"llm critic: attempt 1 failed: {reason}")


def test_retry_after_is_respected_but_capped(llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]) -> None:
    """Waits: Retry-After seconds, retry-after-ms, capped at llm_max_wait_s; exponential backoff otherwise, and for
    a Retry-After that is neither seconds nor a date."""
    waits: list[float] = []
    client = LlmClient(llm_settings(llm_max_retries=5, llm_backoff_s=0.01, llm_max_wait_s=3.0), sleep=waits.append)
    llm_server.push(
        error(429, "slow", {"Retry-After": "2"}),
        error(429, "slow", {"retry-after-ms": "30"}),
        error(429, "slow", {"Retry-After": "120"}),
        error(503, "busy"),
        error(503, "busy", {"Retry-After": "soon"}),
        structured({"verdict": None, "sections": []}),
    )
    value, usage, notes = client.call("test", AnswerOut, "system", "user")
    assert waits == [2.0, 0.03, 3.0, 0.08, 0.16]
    assert value == AnswerOut(verdict=None, sections=[]) and usage.llm_calls == 1
    assert notes[-1] == "test: recovered on attempt 6"


def test_a_wait_that_would_end_past_the_deadline_is_not_taken(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """A Retry-After longer than what is left of the call deadline ends the call at once instead of sleeping."""
    waits: list[float] = []
    client = LlmClient(llm_settings(llm_max_wait_s=60.0, llm_deadline_s=5.0), sleep=waits.append)
    llm_server.push(error(429, "slow", {"Retry-After": "30"}))
    with pytest.raises(LlmUnavailableError) as caught:
        client.call("test", AnswerOut, "system", "user")
    assert waits == [] and caught.value.attempts == 1 and caught.value.reason == "HTTP 429"


def test_a_server_dripping_bytes_cannot_outlast_the_deadline(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """A reply trickling one byte every 0.2 s never trips a per-read timeout, yet the call ends at the 1 s budget,
    and the abandoned request hangs up on the server soon after instead of reading on for a minute. The bound is
    a tenth of what the whole drip takes, so a loaded machine's scheduling cannot fail it; an unbounded read would."""
    reply = replace(structured(EMPTY), drip_s=0.2)
    llm_server.push(reply)
    client = LlmClient(llm_settings(llm_timeout_s=1.0, llm_max_retries=0))
    start = time.monotonic()
    with pytest.raises(LlmUnavailableError) as caught:
        client.call("llm critic", FindingsOut, "s", "u")
    assert time.monotonic() - start < len(json.dumps(reply.body)) * reply.drip_s / 10
    assert caught.value.reason == "deadline" and caught.value.notes == ("llm critic: attempt 1 failed: deadline",)
    assert llm_server.aborted.wait(2.0)


def test_the_call_deadline_bounds_every_retry_and_wait(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """500s retried with waits stop at the call's 1 s deadline, however many retries are allowed (ten waits of
    1 s alone would take 10 s; the 5 s bound leaves a loaded machine's scheduling room)."""
    llm_server.push(*[error(500, "busy", {"Retry-After": "1"})] * 11)
    client = LlmClient(llm_settings(llm_max_retries=10, llm_max_wait_s=1.0, llm_deadline_s=1.0))
    start = time.monotonic()
    with pytest.raises(LlmUnavailableError) as caught:
        client.call("llm critic", FindingsOut, "s", "u")
    assert time.monotonic() - start < 5.0 and caught.value.attempts < 11
    assert caught.value.reason in ("HTTP 500", "deadline")  # the last attempt may be the one the deadline cuts


def test_a_timed_out_call_is_one_failure_not_several_queued_requests(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """A server still busy with a request the client abandoned at its budget is not sent a retry that would
    queue behind it: one request, one failure for the breaker, the reason is the deadline."""
    llm_server.push(*[completion('{"deficiencies": []}', delay_s=5)] * 4, structured(EMPTY))
    client = LlmClient(llm_settings(llm_timeout_s=SLOW, llm_max_retries=3, llm_deadline_s=5.0))
    start = time.monotonic()
    with pytest.raises(LlmUnavailableError) as caught:
        client.call("llm critic", FindingsOut, "s", "u")
    # the reply waits 5 s; on a loaded machine the server may not have logged the one request when the client gives
    # up at its SLOW budget, so the client's own count (attempts, below) says that no retry was sent
    assert time.monotonic() - start < 3.0 and len(llm_server.requests) <= 1
    assert (caught.value.attempts, caught.value.reason, client.breaker.failures) == (1, "deadline", 1)
    assert caught.value.notes == ("llm critic: attempt 1 failed: deadline",)
    (failed,) = caught.value.usage.calls
    assert (failed.role, failed.outcome, failed.reason) == ("critic", "failed", "deadline")


class Clock:
    """A settable monotonic clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_circuit_breaker_fails_fast_after_consecutive_outages_and_tries_again_after_the_cooldown(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """Two calls lost to 500s open the breaker: the third fails without a request; after the cooldown one trial
    call goes out and its success closes the breaker again."""
    clock = Clock()
    client = LlmClient(llm_settings(llm_breaker_after=2, llm_breaker_cooldown_s=60, llm_max_retries=1), clock=clock)
    llm_server.push(*[error(500, "down")] * 4)
    for _ in range(2):
        with pytest.raises(LlmUnavailableError):
            client.call("llm critic", FindingsOut, "s", "u")
    assert len(llm_server.requests) == 4
    with pytest.raises(LlmUnavailableError) as caught:
        client.call("llm drafter", FindingsOut, "s", "u")
    assert len(llm_server.requests) == 4 and caught.value.reason == "circuit open"
    assert caught.value.notes == ("llm drafter: circuit open after 2 consecutive unavailable calls; next try in 60 s",)
    clock.now += 61
    llm_server.push(structured(EMPTY))
    client.call("llm critic", FindingsOut, "s", "u")
    assert len(llm_server.requests) == 5 and client.breaker.blocked() is None


def test_replies_that_are_not_outages_do_not_open_the_breaker(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """A refusal or a 400 means the server answers: the breaker stays closed."""
    client = LlmClient(llm_settings(llm_breaker_after=1))
    llm_server.push(completion(None, refusal="no"), error(400, "bad request"), structured(EMPTY))
    for _ in range(2):
        with pytest.raises(LlmUnavailableError):
            client.call("llm critic", FindingsOut, "s", "u")
    client.call("llm critic", FindingsOut, "s", "u")
    assert len(llm_server.requests) == 3


def test_an_open_breaker_degrades_every_engine_honestly(llm_settings: Callable[..., Settings]) -> None:
    """No server: the planner and drafter calls are tried and lost, the breaker opens, and the next call fails
    fast; each engine keeps working on its fallback and says why."""

    client = LlmClient(llm_settings(openai_base_url=f"http://127.0.0.1:{closed_port()}/v1", llm_breaker_after=2))
    plan = LlmPlanner(client, fallback=FloorPlanner()).plan("q", engine_ctx())
    drafter = LlmDrafter(client, fallback=BlankDrafter())
    first, second = (drafter.draft(two_country_plan(), hits_for(two_country_plan()), engine_ctx()) for _ in range(2))
    assert plan.notes[-1] == "llm planner unavailable (connection failed); the floor planner's plan is used"
    assert first.notes[-1] == "llm drafter unavailable (connection failed); the blank drafter wrote this draft"
    assert sum("attempt" in n for n in first.notes) == 3
    assert second.notes[0].startswith("llm drafter: circuit open after 2 consecutive unavailable calls")
    assert second.notes[-1] == "llm drafter unavailable (circuit open); the blank drafter wrote this draft"


# ---------------------------------------------------------------------------------------- through the loop


def test_connection_refused_falls_back_to_the_offline_engine_for_every_call(
    llm_workbench: Callable[..., Workbench],
) -> None:
    """No server: the offline planner, drafter and rules do the work; after three lost calls the breaker fails
    the rest fast; the session completes with 0 LLM calls and says so in every cycle record."""
    r = llm_workbench(openai_base_url=f"http://127.0.0.1:{closed_port()}/v1").start(
        QUESTION, as_of=AS_OF, approve="all"
    )
    assert r.engine == "hybrid" and r.status == "completed" and not r.termination_reason.startswith("degraded")
    assert r.metrics["llm_calls"] == 0 and r.plan is not None and r.plan.planner == "offline"
    first = r.evaluation_history[0]
    assert first.critics == ("rules",)
    assert "llm planner unavailable (connection failed); the offline planner's plan is used" in first.notes
    assert "llm drafter unavailable (connection failed); the offline drafter wrote this draft" in first.notes
    assert "llm critic unavailable (connection failed); the rules critic covered this cycle" in first.notes
    assert sum("attempt" in n and "connection failed" in n for n in first.notes) == 9  # 3 calls x 3 attempts
    assert all(
        "llm critic unavailable (circuit open); the rules critic covered this cycle" in rec.notes
        for rec in r.evaluation_history[1:]
    )
    assert "[ru-act]" in r.final_answer


def test_a_refusing_critic_is_not_retried_and_the_rules_cover_the_cycle(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    """A refusal would repeat at temperature 0: one attempt, then the rule critic covers that cycle; the next
    cycle uses the model again."""
    llm_server.model = FakeModel(skip_jurisdictions=("XY",), findings=[completion(None, refusal="I cannot help.")])
    r = llm_workbench(engine="llm").start(QUESTION, as_of=AS_OF, approve="all")
    assert llm_server.schemas() == ["PlanOut", "AnswerOut", "FindingsOut", "AnswerOut", "FindingsOut"]
    first, second = r.evaluation_history
    assert first.critics == ("rules",) and second.critics == ("llm", "rule floor")
    assert "llm critic: attempt 1 failed: refusal: I cannot help." in first.notes
    assert "llm critic unavailable (refusal); the rules critic covered this cycle" in first.notes
    assert first.llm_calls == 3 and first.prompt_tokens == 360  # the refused completion is still accounted
    assert r.termination_reason == "no_open_deficiencies"


def test_a_drafter_without_a_fallback_ends_the_loop_degraded_llm(
    llm_settings: Callable[..., Settings], llm_workbench: Callable[..., Workbench]
) -> None:
    """Nothing can write the answer: the loop ends with degraded_llm, the session is kept and readable."""
    wb = llm_workbench()
    dead = llm_settings(openai_base_url=f"http://127.0.0.1:{closed_port()}/v1")
    wb.planner = LlmPlanner(LlmClient(dead), fallback=OfflinePlanner())
    wb.drafter = LlmDrafter(LlmClient(dead), fallback=None)
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")
    assert r.status == "completed" and r.termination_reason == "degraded_llm"
    assert "drafting failed: llm drafter: connection failed (after 3 attempts)" in r.evaluation_history[0].notes
    assert wb.show(r.thread_id).termination_reason == "degraded_llm"


def test_a_bare_llm_critic_failure_ends_the_loop_degraded_llm(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings], llm_workbench: Callable[..., Workbench]
) -> None:
    """Without the rule critic behind it, an unavailable model critic ends the loop honestly, keeping the draft."""
    llm_server.model = FakeModel()
    wb = llm_workbench()
    wb.critic = LlmCritic(LlmClient(llm_settings(openai_base_url=f"http://127.0.0.1:{closed_port()}/v1")))
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")
    assert r.termination_reason == "degraded_llm"
    assert r.evaluation_history[0].notes[-1].startswith("critic failed: llm critic: connection failed")
    assert "[ru-act]" in r.final_answer


def test_an_attempt_cut_to_the_deadline_is_noted_as_the_deadline_whichever_timer_fires_first(
    llm_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an attempt whose budget is what is left of the call's deadline, the HTTP read timeout and the deadline
    timer end it at the same moment; under load either fires first, and the note names the deadline both ways."""
    client = LlmClient(llm_settings(llm_timeout_s=0.4, llm_deadline_s=0.4, llm_max_retries=0))

    def read_timeout(*_args: object) -> None:
        raise openai.APITimeoutError(request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))

    monkeypatch.setattr(client, "_once", read_timeout)
    with pytest.raises(LlmUnavailableError) as caught:
        client.call("llm critic", FindingsOut, "s", "u")
    assert caught.value.reason == "deadline"
    assert caught.value.notes == ("llm critic: attempt 1 failed: deadline",)


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "tools"])
def test_a_reply_cut_at_its_limit_keeps_its_complete_findings(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings], mode: str
) -> None:
    """Two whole findings and a third cut mid-string at the reply's limit: the call is answered at once with the
    two (no retry that would write them again), and the note says one was dropped."""
    finding = {
        "deficiency_type": "missing_jurisdiction",
        "subject": "XY",
        "description": "No XY source.",
        "severity": "high",
        "suggested_correction_query": "XY rules",
        "affected_section": "XY",
    }
    whole = json.dumps({"deficiencies": [finding, {**finding, "subject": "RU"}]})
    cut = whole[:-2] + ', {"deficiency_type": "missing_exemption", "subject": "the small-firm ex'
    llm_server.push(completion(cut, finish_reason="length", completion_tokens=4096))
    client = LlmClient(llm_settings(llm_structured=mode))
    value, usage, notes = client.call("llm critic", FindingsOut, "s", "u")
    assert [f.subject for f in value.deficiencies] == ["XY", "RU"] and len(llm_server.requests) == 1
    assert usage.calls[0].outcome == "answered"
    assert any("kept its 2 complete record(s), dropped the cut one" in n for n in notes)
