"""Honest provenance and honest gaps: who wrote each part, a model run that wrote nothing labelled at the top,
hybrid filling what the model left out (marked), the draft's gaps told apart from the corpus', and a planned
jurisdiction kept only when the gazetteer maps the quoted words to it."""

from __future__ import annotations

from collections.abc import Callable

from core.config import Settings
from core.domain.answer import DRAFT_GAP_HEADING, Answer, Claim, Quote
from core.domain.plan import Aspect, PlanItem, ResearchPlan, item_id
from core.domain.records import Deficiency, DeficiencyType
from core.engines.base import DraftResult, EngineContext
from core.engines.llm import LlmClient, LlmDrafter, LlmPlanner
from core.engines.offline import OfflineDrafter
from core.export import render
from core.service import Workbench
from tests.llm.conftest import (
    AS_OF,
    QUESTION,
    BlankDrafter,
    FloorPlanner,
    engine_ctx,
    hits_for,
    ru_answer,
    two_country_plan,
)
from tests.llm.loopback import EMPTY_PLAN, FakeModel, LoopbackLLM, closed_port, structured
from tests.loop.corpora import RU_TEXT, XY_TEXT


def test_a_model_run_in_which_the_model_wrote_nothing_says_so_at_the_top_and_in_the_export(
    llm_workbench: Callable[..., Workbench],
) -> None:
    wb = llm_workbench(openai_base_url=f"http://127.0.0.1:{closed_port()}/v1", llm_max_retries=0)
    r = wb.start(QUESTION, as_of=AS_OF, approve="all")
    assert r.engine == "hybrid" and r.written_by.startswith("Written by the offline engine: the hybrid engine's")
    assert "connection failed" in r.written_by
    assert r.final_answer.startswith(f"> {r.written_by}")
    parts = {(p.part, p.by) for p in r.provenance}
    assert ("planner", "offline") in parts and ("drafter", "offline") in parts and ("critic", "offline") in parts
    exported = render(r, "md", audit_ok=True, audit_message="ok").decode()
    assert "| Written by | Written by the offline engine: the hybrid engine" in exported


def test_hybrid_answers_the_items_the_model_left_empty_with_the_offline_drafter_marked_as_such(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    llm_server.model = FakeModel(skip_jurisdictions=("XY",))
    r = llm_workbench().start(QUESTION, as_of=AS_OF, approve="all")
    xy = r.answer.section("XY") if r.answer else None
    assert xy is not None and all(c.written_by == "offline" for c in xy.claims)
    assert "(written by the offline drafter)" in r.final_answer
    draft_notes = " | ".join(r.evaluation_history[0].notes)
    assert "the model's draft left 2 item(s) with retrieved passages unanswered (XY:scope, XY:threshold)" in draft_notes
    filled, claims = len(xy.claims), len(r.answer.claims()) if r.answer else 0
    assert r.written_by.startswith("Written by the model and the offline engine: ")
    assert f"the offline drafter wrote {filled} of the answer's {claims} claims" in r.written_by


def test_an_item_with_passages_the_model_left_out_is_not_blamed_on_the_corpus(
    llm_server: LoopbackLLM, llm_workbench: Callable[..., Workbench]
) -> None:
    """llm engine, a model that drafts nothing: the final answer says the draft does not answer the items and
    names the passages found; it never says the corpus holds no source on them."""
    llm_server.push(structured(EMPTY_PLAN))
    llm_server.model = lambda request: structured(
        {"verdict": None, "sections": []} if "sections" in str(request) else {"deficiencies": []}
    )
    r = llm_workbench(engine="llm", max_cycles=0).start(QUESTION, as_of=AS_OF, approve="all")
    assert f"## {DRAFT_GAP_HEADING}" in r.final_answer
    assert r.final_answer.count("- The draft does not state ") >= 2  # an item of each jurisdiction
    assert "passages retrieved for it: ru-act#0" in r.final_answer
    assert "The corpus holds no source on" not in r.final_answer


def test_a_jurisdiction_the_quoted_words_do_not_name_is_dropped_and_counted(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """The words occur in the question, but the gazetteer maps them to another jurisdiction: dropped."""
    question = "What owner disclosure threshold applies in Ruritania?"
    plan = dict(EMPTY_PLAN, jurisdictions=[{"code": "XY", "named_as": ["Ruritania"]}])
    llm_server.push(structured(plan))
    result = LlmPlanner(LlmClient(llm_settings()), fallback=FloorPlanner()).plan(question, engine_ctx())
    assert [j.code for j in result.plan.jurisdictions] == ["RU"]
    assert "llm planner: dropped jurisdiction XY: the gazetteer does not map 'Ruritania' to it" in result.notes
    assert result.usage.calls[0].dropped == 1


def test_hybrid_keeps_the_claims_a_models_revision_left_out(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """A small model's revision comes back empty: in hybrid mode the current answer's claims on the items it no
    longer answers stay (the note says so), except the claim the addressed deficiency names; in llm mode the
    revision is taken as the model wrote it."""
    answer = ru_answer()
    ((_, claim),) = answer.claims()
    other = Deficiency(
        deficiency_type=DeficiencyType.missing_jurisdiction,
        subject="XY",
        description="No XY source.",
        suggested_correction_query="Xylandia owner disclosure",
        affected_section="XY",
    )
    empty = structured({"verdict": None, "sections": []})
    llm_server.push(empty, empty, empty)
    client = LlmClient(llm_settings())
    hybrid = LlmDrafter(client, fallback=OfflineDrafter(), fill_gaps=True)
    kept = hybrid.revise(two_country_plan(), answer, [other], [], engine_ctx())
    assert [c.text for _, c in kept.answer.claims()] == [claim.text]
    assert any("kept the current answer's 1 claim(s) on them" in n for n in kept.notes)
    named = other.model_copy(update={"affected_text": claim.text})
    assert hybrid.revise(two_country_plan(), answer, [named], [], engine_ctx()).answer.claims() == []
    llm_only = LlmDrafter(client, fallback=OfflineDrafter())
    assert llm_only.revise(two_country_plan(), answer, [other], [], engine_ctx()).answer.claims() == []


class VerdictDrafter(BlankDrafter):
    """A fallback drafter that answers only the verdict item, quoting Ruritania's act."""

    name = "verdicts"

    def draft(self, plan: ResearchPlan, hits: object, ctx: EngineContext) -> DraftResult:
        quote = Quote(doc_id="ru-act", chunk_id="ru-act#0", quote=RU_TEXT)
        items = tuple(i.id for i in plan.items if i.aspect == Aspect.verdict)
        verdict = Claim(text=f"Yes. {RU_TEXT}", plan_item_ids=items, citations=(quote,), kind="verdict")
        return DraftResult(answer=Answer(verdict=verdict if items else None), citations=[])


def test_hybrid_gives_the_verdict_the_models_draft_left_out_to_the_offline_drafter(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """A small model drafts every section but its verdict ("Yes." with no citation) is dropped: in hybrid mode
    the fallback drafter's verdict stands in, marked as its own, as for any other item the model left."""
    base = two_country_plan(yes_no=True)
    verdict_item = PlanItem(
        id=item_id("*", Aspect.verdict),
        jurisdiction="*",
        aspect=Aspect.verdict,
        ask="a direct yes or no",
        query=QUESTION,
    )
    plan = base.model_copy(update={"items": (verdict_item, *base.items)})
    hits = hits_for(base)
    hits[verdict_item.id] = hits["RU:threshold"]

    def claim(code: str, text: str) -> dict[str, object]:
        cite = {"chunk_id": f"{'ru-act' if code == 'RU' else 'xy-guidance'}#0", "quote": text}
        return {"text": text, "plan_item_ids": [f"{code}:threshold"], "citations": [cite]}

    sections = [{"jurisdiction": c, "claims": [claim(c, t)]} for c, t in (("RU", RU_TEXT), ("XY", XY_TEXT))]
    llm_server.push(
        structured({"verdict": {"text": "Yes.", "plan_item_ids": [], "citations": []}, "sections": sections})
    )
    hybrid = LlmDrafter(LlmClient(llm_settings()), fallback=VerdictDrafter(), fill_gaps=True)
    result = hybrid.draft(plan, hits, engine_ctx())
    assert result.answer.verdict is not None and result.answer.verdict.text == f"Yes. {RU_TEXT}"
    assert result.answer.verdict.written_by == "verdicts"
    assert len(result.answer.claims()) == 3
    assert any("left 1 item(s) with retrieved passages unanswered (*:verdict)" in n for n in result.notes)
