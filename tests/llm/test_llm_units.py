"""The LLM engine's parts on their own: request shape, critic prompt, subject normalisation, merging by ID."""

from __future__ import annotations

from typing import Callable

import pytest

from core.config import Settings
from core.engines.base import EngineContext
from core.engines.composite import merge
from core.engines.offline import OfflineCritic
from core.engines.llm import CritiqueFindings, FoundDeficiency, LlmClient, LlmCritic, canonical, critic_prompt
from core.retrieval.models import Catalog, DocumentMeta, Exemption, Threshold
from core.state import Deficiency, DeficiencyType, ResolutionStatus, deficiency_id
from tests.llm.conftest import AS_OF, corpus
from tests.llm.loopback import LoopbackLLM, structured, user_text

T = DeficiencyType


def _ctx() -> EngineContext:
    docs = [m for m, _ in corpus()] + [DocumentMeta(
        id="ru-code", title="Ruritania Payments Code", jurisdiction="RU", status="not_yet_applicable",
        effective=AS_OF.replace(year=2028), exemptions=(Exemption(entity="savings club", rule="Clubs are exempt."),),
        thresholds=(Threshold(name="owner_disclosure", value=20, unit="percent"),))]
    texts = {m.id: " ".join(t) for m, t in corpus()}
    return EngineContext(catalog=Catalog(docs), as_of=AS_OF, doc_text=lambda d: texts.get(d, ""))


def _found(kind: str, subject: str, query: str = "q") -> FoundDeficiency:
    return FoundDeficiency.model_validate({"deficiency_type": kind, "subject": subject, "description": "d",
                                           "severity": "high", "suggested_correction_query": query,
                                           "affected_section": "ru"})


def test_requests_have_the_structured_output_shape(llm_server: LoopbackLLM,
                                                   llm_settings: Callable[..., Settings]) -> None:
    """Model, temperature 0, a strict json_schema response format, system then user message; usage per call."""
    llm_server.push(structured({"deficiencies": []}, prompt_tokens=11, completion_tokens=7))
    value, usage, notes = LlmClient(llm_settings()).call("test", CritiqueFindings, "sys", "usr")
    req = llm_server.requests[0]
    assert (req["model"], req["temperature"]) == ("loopback-model", 0)
    fmt = req["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "CritiqueFindings"
    assert fmt["json_schema"]["strict"] is True and fmt["json_schema"]["schema"]["additionalProperties"] is False
    assert [m["role"] for m in req["messages"]] == ["system", "user"]
    assert value.deficiencies == [] and (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (1, 11, 7)
    assert notes == ()


@pytest.mark.parametrize(("kind", "subject", "expected"), [
    ("outdated_source", "[ru-code]", "ru-code"),
    ("missing_jurisdiction", "xy", "XY"),
    ("incorrect_threshold", "ru: Owner Disclosure", "RU:owner_disclosure"),
    ("contradictory_sources", "RU:owner-disclosure", "RU:owner_disclosure"),
    ("missing_exemption", "ru-code:Savings Club", "ru-code:savings club"),
    ("insufficient_specificity", "ru-code:Application date", "ru-code:application_date"),
    ("insufficient_specificity", "claim: firms must disclose",
     "claim:Payment firms must disclose their owners promptly to"),
    ("insufficient_specificity", "Banks must report", "claim:Banks must report"),
])
def test_subjects_are_normalised_to_the_rule_critics_forms(kind: str, subject: str, expected: str) -> None:
    """Same type + subject as the rules => same stable ID, so the composite critic can merge them."""
    answer = "## RU\nPayment firms must disclose their owners promptly to the regulator."
    d = canonical(_found(kind, subject), _ctx(), answer)
    assert d is not None and d.subject == expected and d.id == deficiency_id(kind, expected) and d.origin == "llm"


@pytest.mark.parametrize(("kind", "subject"), [
    ("outdated_source", "made-up-doc"), ("missing_jurisdiction", "Atlantis"), ("incorrect_threshold", "RU"),
    ("missing_exemption", "made-up-doc:bank"),
])
def test_findings_naming_nothing_in_the_corpus_are_dropped(kind: str, subject: str) -> None:
    assert canonical(_found(kind, subject), _ctx()) is None


def test_merge_keeps_one_deficiency_per_id_and_its_origin() -> None:
    both = Deficiency(deficiency_type=T.missing_jurisdiction, subject="XY", description="rules wording")
    rules_only = Deficiency(deficiency_type=T.outdated_source, subject="ru-code", description="r")
    llm_only = Deficiency(deficiency_type=T.insufficient_specificity, subject="claim:x", description="l", origin="llm")
    merged = {d.subject: d for d in merge([both.model_copy(update={"description": "llm wording"}), llm_only],
                                          [both, rules_only])}
    assert {s: d.origin for s, d in merged.items()} == {"XY": "llm+rules", "ru-code": "rules", "claim:x": "llm"}
    assert merged["XY"].description == "rules wording"


def test_critic_sees_metadata_and_attempted_corrections_and_never_repeats_a_failed_query(
        llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]) -> None:
    """Status at as-of, effective date, thresholds and tried queries go into the prompt; a repeat gets widened."""
    ctx = _ctx()
    tried = Deficiency(deficiency_type=T.outdated_source, subject="ru-code", description="not yet applicable",
                       suggested_correction_query="Payments Act current rules",
                       correction_filter={"doc_ids": ["ru-act"]},
                       resolution_status=ResolutionStatus.addressed, resolution_attempt_count=1)
    answer = "## RU\nThe Payments Code applies to each person holding 20% or more. [ru-code]"
    llm_server.push(structured({"deficiencies": [
        _found("outdated_source", "ru-code", "Payments Act current rules").model_dump()]}))
    result = LlmCritic(LlmClient(llm_settings())).critique("owner disclosure in Ruritania?", answer, [tried], ctx)
    prompt = user_text(llm_server.requests[0])
    assert 'status_at_as_of="not_yet_applicable"' in prompt and 'effective="2028-11-30"' in prompt
    assert "threshold owner_disclosure: >= 20 percent" in prompt
    assert f'{tried.id} [outdated_source] subject=ru-code status=addressed; correction already attempted 1x with ' \
           f'query "Payments Act current rules"' in prompt
    assert prompt == critic_prompt("owner disclosure in Ruritania?", answer, [tried], ctx)
    (d,) = result.deficiencies
    assert d.id == tried.id and d.suggested_correction_query == "Payments Act current rules ru-code"


def test_an_llm_claim_finding_gets_the_same_id_as_the_rule_critics() -> None:
    """The rules name an uncited requirement by its first eight words; the LLM's shorter pointer maps onto it."""
    answer = "## RU\nPayment firms must disclose their owners promptly to the regulator."
    rules = OfflineCritic().critique("owner disclosure in Ruritania?", answer, [], _ctx()).deficiencies
    llm = canonical(_found("insufficient_specificity", "claim: Payment firms must disclose"), _ctx(), answer)
    assert llm is not None and llm.id in {d.id for d in rules if d.deficiency_type == T.insufficient_specificity}
