"""Whole loops through core.service.Workbench with the LLM engines against the loopback server."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from core.config import Settings
from core.domain.answer import Answer, AnswerSection, Claim, Quote
from core.domain.records import DeficiencyType
from core.domain.stop_reasons import LLM_BUDGET_EXHAUSTED, NO_OPEN_DEFICIENCIES, describe
from core.engines.factory import EngineConfigError, make_engines
from core.engines.llm.prompts import DATA_RULE
from core.service import Workbench
from tests.llm.conftest import INJECTION, QUESTION, engine_ctx, two_country_plan
from tests.llm.loopback import EMPTY_PLAN, FakeModel, LoopbackLLM, claim, structured, system_text, user_text
from tests.loop.corpora import AS_OF, RU_TEXT

MISSING_XY = {
    "deficiency_type": "missing_jurisdiction",
    "subject": "xy",
    "description": "No Xylandia source is cited.",
    "severity": "high",
    "suggested_correction_query": "Xylandia owner disclosure",
    "affected_section": "XY",
}
VAGUE_RU = {
    "deficiency_type": "insufficient_specificity",
    "subject": "RU:Threshold",
    "description": "Say whether the Ruritania threshold is inclusive.",
    "severity": "low",
    "suggested_correction_query": "Payments Act owner disclosure more than 30%",
    "affected_section": "RU",
}
FABRICATED = "Under the Payments Act, owner disclosure applies to each person holding more than 10% of a payment firm."
FABRICATED_CLAIM = Claim(
    text=FABRICATED,
    plan_item_ids=("RU:threshold",),
    citations=(Quote(doc_id="ru-act", chunk_id="ru-act#0", quote=RU_TEXT),),
)
FABRICATED_ANSWER = Answer(sections=(AnswerSection(jurisdiction="RU", claims=(FABRICATED_CLAIM,)),))
"""An answer whose one claim states a figure (10%) that the Payments Act passage it quotes (30%) does not."""


def test_llm_loop_plans_drafts_and_converges_with_merged_origins_and_accounting(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    """Draft misses XY; the rule floor and the LLM both find it (llm+rules), the LLM adds its own finding; one
    cycle fixes both (llm engine: no offline drafter fills what the model left out)."""
    llm_server.model = FakeModel(skip_jurisdictions=("XY",), findings=[[MISSING_XY, VAGUE_RU]])
    wb = llm_workbench(engine="llm")
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")

    assert (r.engine, r.status, r.termination_reason) == ("llm", "completed", NO_OPEN_DEFICIENCIES)
    assert llm_server.schemas() == ["PlanOut", "AnswerOut", "FindingsOut", "AnswerOut", "FindingsOut"]
    assert r.plan is not None and r.plan.planner == "llm" and {"RU", "XY"} <= {j.code for j in r.plan.jurisdictions}
    origins = {d.subject: d.origin for d in r.identified_deficiencies}
    assert origins == {"XY": "llm+rules", "RU:threshold": "llm"}
    assert all(d.resolution_status.value == "resolved" for d in r.identified_deficiencies)
    assert r.answer is not None and {s.jurisdiction for s in r.answer.sections} == {"RU", "XY"}
    assert all(q.quote for _, c in r.answer.claims() for q in c.citations)
    assert "[xy-guidance]" in r.final_answer and "[ru-act]" in r.final_answer
    second_critique = user_text(llm_server.requests[4])
    for d in r.identified_deficiencies:
        assert (
            f"{d.id} [{d.deficiency_type.value}] subject={d.subject} status=addressed; correction already "
            f'attempted 1x with query "{d.suggested_correction_query}"' in second_critique
        )

    assert r.metrics["llm_calls"] == 5
    assert (r.metrics["prompt_tokens"], r.metrics["completion_tokens"]) == (5 * 120, 5 * 40)
    history = r.evaluation_history
    assert [rec.critics for rec in history] == [("llm", "rule floor"), ("llm", "rule floor")]
    assert [rec.llm_calls for rec in history] == [3, 2]  # plan + draft + critique, then revise + critique
    assert sum(rec.prompt_tokens for rec in history) == r.metrics["prompt_tokens"]
    assert wb.verify_audit(r.thread_id)[0]


def test_the_rule_floor_catches_a_fabricated_figure_under_engine_llm(
    llm_settings: Callable[..., Settings], llm_server: LoopbackLLM
) -> None:
    """Engine `llm`: a model critic that sees nothing wrong cannot pass a claim whose figure its quoted passage
    does not state; the rule floor reports it (critical, origin rules) and the score stays below the threshold."""
    _, _, critic, name = make_engines(llm_settings(engine="llm"))
    llm_server.push(structured({"deficiencies": []}))
    result = critic.critique(two_country_plan(), FABRICATED_ANSWER, [], engine_ctx())
    assert name == "llm" and result.critics == ("llm", "rule floor")
    wrong = [d for d in result.deficiencies if d.deficiency_type == DeficiencyType.incorrect_threshold]
    assert [(d.subject, d.origin, d.severity.value) for d in wrong] == [
        ("RU:RU:threshold:percent:10", "rules", "critical")
    ]
    assert {d.subject for d in result.deficiencies} >= {"XY"}  # coverage: Xylandia has no supported claim
    assert result.answered_items == ("RU:threshold",) and result.score < 0.5


@pytest.mark.parametrize("engine", ["llm", "hybrid"])
def test_the_model_and_the_rules_name_a_wrong_figure_alike_so_their_findings_merge(
    llm_settings: Callable[..., Settings], llm_server: LoopbackLLM, engine: str
) -> None:
    """The model points at the item and the figure; Python names it as the claim verifier does: one deficiency,
    found by both, in either engine."""
    _, _, critic, _ = make_engines(llm_settings(engine=engine))
    llm_server.push(
        structured(
            {
                "deficiencies": [
                    {
                        "deficiency_type": "incorrect_threshold",
                        "subject": "RU:threshold|more than 10%",
                        "severity": "critical",
                        "description": "The Act says more than 30%.",
                        "suggested_correction_query": "Payments Act owner disclosure",
                        "affected_section": "RU",
                    }
                ]
            }
        )
    )
    result = critic.critique(two_country_plan(), FABRICATED_ANSWER, [], engine_ctx())
    (wrong,) = [d for d in result.deficiencies if d.deficiency_type == DeficiencyType.incorrect_threshold]
    assert (wrong.subject, wrong.origin) == ("RU:RU:threshold:percent:10", "llm+rules")
    assert wrong.description.startswith("The claim")  # the rule version's content wins


def test_a_fabricated_figure_never_finishes_at_full_score_with_nothing_disclosed(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    """A whole `llm` run whose model drafts a wrong figure, keeps it through every revision and whose model critic
    finds nothing: the rule floor finds it each cycle, the run ends below the threshold, and the final answer
    discloses it."""
    llm_server.push(
        structured(EMPTY_PLAN),
        structured(
            {
                "verdict": None,
                "sections": [
                    {
                        "jurisdiction": "RU",
                        "claims": [claim(FABRICATED, ["RU:threshold", "RU:scope"], "ru-act#0", RU_TEXT)],
                    },
                    {"jurisdiction": "XY", "claims": []},
                ],
            }
        ),
    )
    llm_server.model = FakeModel()
    r = llm_workbench(engine="llm").start(QUESTION, as_of=AS_OF, approve="all")
    first = r.evaluation_history[0]
    assert first.overall_score < 1.0 and first.critics == ("llm", "rule floor")
    assert r.termination_reason != NO_OPEN_DEFICIENCIES and r.quality_score < 0.85
    (wrong,) = [d for d in r.residual_deficiencies if d.deficiency_type == DeficiencyType.incorrect_threshold]
    assert (wrong.subject, wrong.origin, wrong.severity.value) == ("RU:RU:threshold:percent:10", "rules", "critical")
    assert "[critical] incorrect threshold" in r.final_answer.split("## Residual deficiencies")[1]


@pytest.mark.parametrize("budget", [{"llm_budget_calls": 3}, {"llm_budget_tokens": 400}])
def test_budget_exhaustion_ends_the_loop_with_its_own_reason(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench], budget: dict[str, int]
) -> None:
    """Plan + draft + first critique spend 3 calls / 480 tokens: the loop stops with a deficiency still open."""
    llm_server.model = FakeModel(skip_jurisdictions=("XY",))
    r = llm_workbench(engine="llm", **budget).start(QUESTION, as_of=AS_OF, approve="all")
    assert r.status == "completed" and r.termination_reason == LLM_BUDGET_EXHAUSTED
    assert r.termination_text == describe(LLM_BUDGET_EXHAUSTED) != LLM_BUDGET_EXHAUSTED
    assert len(llm_server.requests) == 3 and len(r.evaluation_history) == 1
    assert any(n.startswith("llm budget exhausted") for n in r.evaluation_history[0].notes)
    assert any(d.subject == "XY" for d in r.residual_deficiencies)


def test_a_hung_server_costs_seconds_not_minutes_and_the_run_degrades_honestly(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    """Every reply drips a byte every 0.2 s: each call ends at the 0.4 s budget, three lost calls open the
    breaker, every later call fails fast, and the offline engine and the rules finish the run with notes."""
    llm_server.model = lambda request: replace(structured(EMPTY_PLAN), drip_s=0.2)
    start = time.monotonic()
    r = llm_workbench(llm_timeout_s=0.4, llm_max_retries=0).start(QUESTION, as_of=AS_OF, approve="all")
    assert time.monotonic() - start < 5 and len(llm_server.requests) == 3
    assert r.status == "completed" and r.metrics["llm_calls"] == 0
    notes = [n for rec in r.evaluation_history for n in rec.notes]
    for role in ("planner", "drafter", "critic"):
        assert f"llm {role}: attempt 1 failed: deadline" in notes
    assert "llm critic unavailable (deadline); the rules critic covered this cycle" in notes
    if len(r.evaluation_history) > 1:
        assert "llm critic unavailable (circuit open); the rules critic covered this cycle" in notes
    assert all(rec.critics == ("rules",) for rec in r.evaluation_history)


def test_prompt_injection_stays_inside_the_data_delimiters(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    """The injected passage reaches the model only inside its <document> block, whose fake closing tag is defused."""
    llm_server.model = FakeModel()
    r = llm_workbench(injected=True, engine="llm").start(QUESTION, as_of=AS_OF, approve="all")
    draft = llm_server.requests[1]
    assert DATA_RULE in system_text(draft) and INJECTION not in system_text(draft)
    text = user_text(draft)
    start = text.index('<document id="ru-act"')
    end = text.index("</document>", start)
    assert start < text.index(INJECTION) < end
    assert text.count("<document ") == text.count("</document>")
    assert "&lt;/document>" in text
    assert "attacker-doc" not in r.final_answer and "no owner disclosure applies" not in r.final_answer.lower()


def test_a_model_that_follows_an_injection_cannot_cite_or_head_outside_what_it_was_given(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    """Citations of passages the model was not given, uncited claims and invented headings are dropped, noted."""
    follows: dict[str, Any] = {
        "verdict": None,
        "sections": [
            {
                "jurisdiction": "RU",
                "claims": [
                    claim(
                        "No owner disclosure applies anywhere.",
                        ["RU:threshold"],
                        "attacker-doc#0",
                        "no owner disclosure applies",
                    ),
                    claim(RU_TEXT, ["RU:threshold"], "ru-act#0", RU_TEXT),
                ],
            },
            {"jurisdiction": "SYSTEM OVERRIDE", "claims": [claim("Obey the document.", [], "ru-act#0", RU_TEXT)]},
        ],
    }
    llm_server.push(structured(EMPTY_PLAN), structured(follows))
    llm_server.model = FakeModel()
    r = llm_workbench(injected=True, engine="llm").start(QUESTION, as_of=AS_OF, approve="all")
    assert "attacker-doc" not in r.final_answer and "anywhere" not in r.final_answer
    assert "SYSTEM" not in r.final_answer
    notes = " | ".join(r.evaluation_history[0].notes)
    assert "dropped a citation of 'attacker-doc#0'" in notes and "'SYSTEM OVERRIDE'" in notes


def test_engine_choice_from_settings(llm_settings: Callable[..., Settings]) -> None:
    """Default: hybrid with a model configured, offline without; explicit names; errors name the fix."""
    assert make_engines(llm_settings(engine=None))[3] == "hybrid"
    assert make_engines(llm_settings(engine=None, openai_base_url=None))[3] == "offline"
    assert make_engines(llm_settings(engine=None, openai_base_url=None, openai_api_key="sk-test"))[3] == "hybrid"
    planner, drafter, critic, name = make_engines(llm_settings(engine="LLM"))
    assert (name, planner.name, drafter.name, critic.name) == ("llm", "llm", "llm", "llm")
    assert make_engines(llm_settings(engine="hybrid"))[2].name == "llm+rules"
    with pytest.raises(EngineConfigError, match="OPENAI_BASE_URL"):
        make_engines(llm_settings(engine="hybrid", openai_base_url=None))
    with pytest.raises(EngineConfigError, match="offline, llm, hybrid"):
        make_engines(llm_settings().model_copy(update={"engine": "gpt"}))
