"""The LLM critic over the loopback server: subjects in the rule critic's forms, findings dropped or capped,
what the critic sees; and the composite critic's merge by ID."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.config import Settings
from core.domain.documents import DocumentMeta, Exemption, Threshold
from core.domain.records import Deficiency, DeficiencyType, ResolutionStatus, deficiency_id
from core.engines.composite import merge
from core.engines.llm import LlmClient, LlmCritic
from core.engines.llm.prompts import critic_prompt
from tests.llm.conftest import AS_OF, RU_TEXT, engine_ctx, ru_answer, two_country_plan
from tests.llm.loopback import LoopbackLLM, structured, user_text

T = DeficiencyType
RU_CODE = DocumentMeta(
    id="ru-code",
    title="Ruritania Payments Code",
    jurisdiction="RU",
    status="not_yet_applicable",
    effective=AS_OF.replace(year=2028),
    exemptions=(Exemption(entity="savings club", rule="Clubs are exempt."),),
    thresholds=(Threshold(name="owner_disclosure", value=20, unit="percent"),),
)


def _finding(kind: str, subject: str, query: str = "q", section: str = "ru") -> dict[str, Any]:
    return {
        "deficiency_type": kind,
        "subject": subject,
        "description": "d",
        "severity": "high",
        "suggested_correction_query": query,
        "affected_section": section,
    }


@pytest.mark.parametrize(
    ("kind", "subject", "expected"),
    [
        ("outdated_source", "[ru-code]", "ru-code"),
        ("missing_jurisdiction", "xy", "XY"),
        ("insufficient_specificity", "xy:threshold", "XY:threshold"),
        ("incorrect_threshold", "RU:threshold|more than 30%", "RU:RU:threshold:percent:30"),
        ("incorrect_threshold", "RU:threshold|1 January 2027", "RU:RU:threshold:date:2027-01-01"),
        ("contradictory_sources", "RU:threshold|25%", "RU:threshold:percent"),
        ("missing_exemption", "ru-code:Savings Club", "ru-code:savings club"),
        ("insufficient_specificity", "ru-code:Application date", "ru-code:application_date"),
        ("insufficient_specificity", "c1", "claim:Owner disclosure applies above 30%."),
    ],
)
def test_subjects_take_the_rule_critics_forms(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings], kind: str, subject: str, expected: str
) -> None:
    """Same type + subject as the rules => same stable ID, so the composite critic can merge them."""
    llm_server.push(structured({"deficiencies": [_finding(kind, subject)]}))
    result = LlmCritic(LlmClient(llm_settings())).critique(
        two_country_plan(), ru_answer(), [], engine_ctx(extra=(RU_CODE,))
    )
    (d,) = result.deficiencies
    assert d.subject == expected and d.id == deficiency_id(kind, expected) and d.origin == "llm"


@pytest.mark.parametrize(
    ("kind", "subject"),
    [
        ("outdated_source", "made-up-doc"),
        ("missing_jurisdiction", "Atlantis"),
        ("incorrect_threshold", "RU"),
        ("incorrect_threshold", "RU:threshold|no figure"),
        ("missing_exemption", "made-up-doc:bank"),
        ("insufficient_specificity", "RU:scope"),
        ("insufficient_specificity", "c9"),
    ],
)
def test_findings_naming_nothing_real_are_dropped(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings], kind: str, subject: str
) -> None:
    llm_server.push(structured({"deficiencies": [_finding(kind, subject)]}))
    result = LlmCritic(LlmClient(llm_settings())).critique(two_country_plan(), ru_answer(), [], engine_ctx())
    assert result.deficiencies == [] and "names nothing in the plan, the answer or the corpus" in result.notes[0]


def test_findings_beyond_the_cap_are_dropped_with_a_note(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    llm_server.push(
        structured(
            {
                "deficiencies": [_finding("missing_jurisdiction", "XY")] * 2
                + [_finding("insufficient_specificity", "RU:threshold")] * 3
            }
        )
    )
    result = LlmCritic(LlmClient(llm_settings()), max_findings=3).critique(
        two_country_plan(), ru_answer(), [], engine_ctx()
    )
    assert [d.subject for d in result.deficiencies] == ["XY", "RU:threshold"]
    assert result.notes == ("llm critic: dropped 2 finding(s) beyond the cap of 3",)


def test_the_critic_sees_plan_claims_quotes_passages_and_attempts_and_never_repeats_a_failed_query(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    ctx = engine_ctx(extra=(RU_CODE,))
    tried = Deficiency(
        deficiency_type=T.insufficient_specificity,
        subject="XY:threshold",
        description="missing",
        suggested_correction_query="Xylandia threshold",
        resolution_attempt_count=1,
        resolution_status=ResolutionStatus.addressed,
    )
    llm_server.push(
        structured({"deficiencies": [_finding("insufficient_specificity", "XY:threshold", "Xylandia threshold", "XY")]})
    )
    plan, answer = two_country_plan(), ru_answer()
    (d,) = LlmCritic(LlmClient(llm_settings())).critique(plan, answer, [tried], ctx).deficiencies
    prompt = user_text(llm_server.requests[0])
    assert prompt == critic_prompt(plan, answer, [tried], ctx)[0]
    assert "- XY:threshold: the owner disclosure threshold in Xylandia" in prompt
    assert f'c1 [RU] items=RU:threshold: Owner disclosure applies above 30%.\n    cites ru-act#0: "{RU_TEXT}"' in prompt
    assert '<document id="ru-act" chunk_id="ru-act#0" jurisdiction="RU">' in prompt
    assert "- ru-act (Ruritania Payments Act, RU): status_at_as_of=in_force" in prompt
    assert "threshold owner_disclosure: > 30 percent" in prompt
    assert 'correction already attempted 1x with query "Xylandia threshold"' in prompt
    assert d.id == tried.id and d.suggested_correction_query == "Xylandia threshold XY threshold"
    assert d.correction_filter == {"jurisdictions": ["XY"], "items": ["XY:threshold"]}


def test_merge_keeps_one_deficiency_per_id_and_its_origin() -> None:
    both = Deficiency(deficiency_type=T.missing_jurisdiction, subject="XY", description="rules wording")
    rules_only = Deficiency(deficiency_type=T.outdated_source, subject="ru-code", description="r")
    llm_only = Deficiency(deficiency_type=T.insufficient_specificity, subject="claim:x", description="l", origin="llm")
    merged = {
        d.subject: d
        for d in merge([both.model_copy(update={"description": "llm wording"}), llm_only], [both, rules_only])
    }
    assert {s: d.origin for s, d in merged.items()} == {"XY": "llm+rules", "ru-code": "rules", "claim:x": "llm"}
    assert merged["XY"].description == "rules wording"
