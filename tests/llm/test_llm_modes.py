"""Structured-output modes against scripted servers: json_schema, json_object with the schema, tools; `auto`
falling back on a refusal and remembering what worked; a refusal never opens the breaker; the mode and the
tokens of every call reach the cycle records."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.config import Settings
from core.domain.audit import verify_chain
from core.domain.records import EvaluationCycleRecord, ModelCall
from core.engines.llm import LlmClient, LlmUnavailableError
from core.engines.llm.modes import MODES, schema_instruction
from core.engines.llm.schemas import AnswerOut, FindingsOut
from core.service import Workbench
from tests.llm.conftest import AS_OF, QUESTION
from tests.llm.loopback import FakeModel, LoopbackLLM, completion, error, structured, system_text

EMPTY = {"deficiencies": []}


def test_auto_falls_back_from_a_refused_json_schema_to_json_object_with_the_schema_and_remembers_it(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """llama-cpp-python refuses json_schema with a 500 naming response_format: the same call is made again in
    json_object mode with the schema in the request and the system prompt; the next call starts there."""
    llm_server.formats = ("json_object", "tools")
    llm_server.push(structured(EMPTY, prompt_tokens=50, completion_tokens=5), structured(EMPTY))
    client = LlmClient(llm_settings(llm_breaker_after=1))
    value, usage, notes = client.call("llm critic", FindingsOut, "sys", "usr")
    assert value.deficiencies == [] and len(llm_server.refused) == 1
    (req,) = llm_server.requests
    assert req["response_format"]["type"] == "json_object"
    assert req["response_format"]["schema"]["properties"]["deficiencies"]["type"] == "array"
    assert "validates against this JSON schema" in system_text(req)
    assert notes[0].startswith("llm critic: the server refused the json_schema mode (")
    assert client.breaker.failures == 0 and client.breaker.blocked() is None
    (call,) = usage.calls
    assert (call.role, call.outcome, call.mode, call.prompt_tokens, call.completion_tokens) == (
        "critic",
        "answered",
        "json_object",
        50,
        5,
    )
    client.call("llm critic", FindingsOut, "sys", "usr")
    assert len(llm_server.refused) == 1 and llm_server.modes() == ["json_object", "json_object"]
    assert LlmClient(llm_settings()).mode() == "json_object"  # per base URL and model, for the process


def test_auto_ends_in_tool_calling_when_only_tools_are_accepted(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """Refused twice (a 400 naming the format, then a 500): the reply is read from the forced tool call."""
    llm_server.formats = ("tools",)
    llm_server.refusal = error(400, "response_format is not supported by this server")
    llm_server.push(structured(EMPTY))
    value, usage, notes = LlmClient(llm_settings()).call("llm critic", FindingsOut, "s", "u")
    assert value.deficiencies == [] and usage.calls[0].mode == "tools" and len(notes) == 2
    (req,) = llm_server.requests
    assert req["tool_choice"] == {"type": "function", "function": {"name": "FindingsOut"}}
    assert "response_format" not in req


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "tools"])
def test_a_configured_mode_is_used_alone_and_validates_into_the_same_model(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings], mode: str
) -> None:
    finding = {
        "deficiency_type": "missing_jurisdiction",
        "subject": "XY",
        "description": "No Xylandia source.",
        "severity": "high",
        "suggested_correction_query": "Xylandia",
        "affected_section": "XY",
    }
    llm_server.push(structured({"deficiencies": [finding]}))
    value, usage, _ = LlmClient(llm_settings(llm_structured=mode)).call("llm critic", FindingsOut, "s", "u")
    assert value == FindingsOut.model_validate({"deficiencies": [finding]})
    assert llm_server.modes() == [mode] and usage.calls[0].mode == mode


def test_a_server_refusing_every_mode_is_unavailable_without_opening_the_breaker(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    llm_server.formats = ()
    client = LlmClient(llm_settings(llm_breaker_after=1))
    with pytest.raises(LlmUnavailableError) as caught:
        client.call("llm critic", FindingsOut, "s", "u")
    assert caught.value.reason == "structured output refused (json_schema, json_object, tools)"
    assert len(llm_server.refused) == 3 and not llm_server.requests
    assert client.breaker.failures == 0 and client.breaker.blocked() is None
    assert caught.value.usage.calls[-1].outcome == "failed"


def test_a_configured_mode_the_server_refuses_is_not_swapped_for_another(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    llm_server.formats = ("json_object",)
    with pytest.raises(LlmUnavailableError) as caught:
        LlmClient(llm_settings(llm_structured="json_schema")).call("llm critic", FindingsOut, "s", "u")
    assert caught.value.reason == "structured output refused (json_schema)" and len(llm_server.refused) == 1


def test_an_unknown_mode_setting_is_refused_with_the_names_allowed(llm_settings: Callable[..., Settings]) -> None:
    with pytest.raises(ValueError, match="unknown structured-output mode: use one of auto, json_schema"):
        llm_settings(llm_structured="grammar")


def test_a_loop_against_a_json_object_server_records_mode_and_tokens_per_call(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    """The whole hybrid loop on a server that refuses json_schema: every call answered in json_object mode,
    each with its tokens in the cycle records and named in the cycle notes; the audit chain verifies."""
    llm_server.formats = ("json_object",)
    llm_server.model = FakeModel()
    r = llm_workbench().start(QUESTION, as_of=AS_OF, approve="all")
    calls = [c for rec in r.evaluation_history for c in rec.model_calls]
    assert calls and all(c.outcome == "answered" and c.mode == "json_object" for c in calls)
    assert all(c.prompt_tokens == 120 and c.completion_tokens == 40 and c.prompt_estimate > 0 for c in calls)
    assert [c.role for c in r.evaluation_history[0].model_calls] == ["planner", "drafter", "critic"]
    assert any(n.startswith("model calls: planner in json_object mode") for n in r.evaluation_history[0].notes)
    assert r.written_by.startswith("Written by the model (json_object)")
    assert {p.by for p in r.provenance} == {"model"}
    assert verify_chain(r.audit_records)[0]


def test_records_without_model_calls_keep_their_hash_and_calls_are_covered_by_it() -> None:
    """A record of a version before per-call records (no `model_calls` in its JSON) still verifies; a recorded
    call's tokens cannot be changed without breaking the hash."""
    old = EvaluationCycleRecord(
        cycle_number=0, timestamp="t", deficiencies_found=(), deficiencies_resolved=(), overall_score=0.5
    ).sealed("")
    stored = old.model_dump(mode="json")
    stored.pop("model_calls")
    assert verify_chain([stored])[0]
    call = ModelCall(role="drafter", outcome="answered", mode="json_object", prompt_tokens=10)
    new = old.model_copy(update={"model_calls": (call,)}).sealed("")
    assert verify_chain([new])[0] and new.record_hash != old.record_hash
    forged = new.model_copy(update={"model_calls": (call.model_copy(update={"prompt_tokens": 1}),)})
    assert not verify_chain([forged])[0]


@pytest.fixture(autouse=True)
def _forget_modes(llm_server: LoopbackLLM) -> None:
    """Each test's server is new (its own port), so nothing remembered leaks; said here for the reader."""
    MODES.forget((llm_server.base_url, "loopback-model"))


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (error(400, "This model's maximum context length is 2048 tokens; your request has 4000"), "HTTP 400"),
        (error(500, "upstream exploded"), "HTTP 500"),
    ],
    ids=["context length", "plain 500"],
)
def test_only_a_refusal_of_the_format_moves_auto_to_the_next_mode(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings], reply: object, reason: str
) -> None:
    """A context-length 400 or a 500 that names no format is the call's failure, in the same mode. (Attempts get
    10 s: under a loaded CI run an error reply once took longer than the fixture's 1 s, and the call then
    failed by its deadline instead.)"""
    llm_server.push(*[reply] * 3)  # type: ignore[list-item]
    with pytest.raises(LlmUnavailableError) as caught:
        LlmClient(llm_settings(llm_timeout_s=10.0, llm_deadline_s=30.0)).call("llm critic", FindingsOut, "s", "u")
    assert caught.value.reason == reason and set(llm_server.modes()) == {"json_schema"}


def test_the_schema_stated_in_the_prompt_keeps_every_field_even_one_named_description() -> None:
    text = schema_instruction(FindingsOut)
    assert '"description":{"type":"string"}' in text and '"title"' not in text
    assert '"required":["deficiency_type","subject","description","severity"' in text


def test_a_raw_line_break_inside_a_json_string_is_accepted(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """Small models under a JSON grammar write raw line breaks inside strings; the reply still validates."""
    llm_server.push(completion('{"verdict": null, "sections": [{"jurisdiction": "RU\n", "claims": []}]}'))
    value, _, _ = LlmClient(llm_settings(llm_structured="json_object")).call("llm drafter", AnswerOut, "s", "u")
    assert value.sections[0].jurisdiction == "RU\n"
