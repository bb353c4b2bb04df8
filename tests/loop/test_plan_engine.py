"""The research plan, the typed answer and the coverage and claim verifiers, on a corpus of countries the sample
corpus lacks, without aliases (tests/loop/countries.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from core.domain.answer import Answer, AnswerSection, Claim, Quote
from core.domain.figures import figures
from core.domain.plan import Aspect, PlanItem
from core.domain.records import DeficiencyType, ResolutionStatus
from core.engines.offline import OfflineCritic
from core.engines.text import is_anaphoric, sentences
from core.evaluation.facts import fact_found
from core.evaluation.scores import cut_sentences, duplicate_sentences
from core.loop.deps import Deps
from core.persistence.checkpoints import memory_persistence
from core.service import Workbench
from tests.fakes import KeywordStore
from tests.loop.corpora import AS_OF
from tests.loop.countries import country_corpus

T = DeficiencyType


@pytest.fixture
def wb(tmp_path: Path) -> Workbench:
    return Workbench(
        Settings(data_dir=tmp_path), store=KeywordStore(country_corpus()), persistence=memory_persistence()
    )


def plan_of(wb: Workbench, question: str) -> Any:
    return wb.planner.plan(question, Deps.context_of(wb.store(), AS_OF)).plan


def test_countries_and_demonyms_name_jurisdictions_without_aliases(wb: Workbench) -> None:
    plan = plan_of(
        wb, "What must a Canadian money services business do, and how does Switzerland compare with Hong Kong?"
    )
    assert [(j.code, j.named_as, j.in_corpus) for j in plan.jurisdictions] == [
        ("CA", ("Canadian",), True),
        ("CH", ("Switzerland",), True),
        ("HK", ("Hong Kong",), True),
    ]
    assert plan.entity_types == ("money services business",)  # the corpus' own vocabulary, not an alias
    assert {i.jurisdiction for i in plan.items if i.answerable} >= {"CA", "CH", "HK"}
    assert plan.comparison and any(i.aspect == Aspect.comparison for i in plan.items)


def test_plan_is_in_every_checkpoint_and_the_answer_is_typed(wb: Workbench) -> None:
    r = wb.start("What cash transaction threshold applies in Australia?", as_of=AS_OF, approve="all")
    again = wb.show(r.thread_id)
    assert again.plan is not None and type(again.plan).__name__ == "ResearchPlan"
    assert type(again.answer).__name__ == "Answer"
    claims = [c for _, c in again.answer.claims()]
    assert claims and all(q.chunk_id.startswith("au-aml-act#") and q.quote for c in claims for q in c.citations)
    assert all(i in {p.id for p in again.plan.items} for c in claims for i in c.plan_item_ids)
    assert fact_found(again.final_answer, "AUD 10,000 or more")


def test_a_yes_no_question_opens_with_a_verdict(wb: Workbench) -> None:
    r = wb.start(
        "Must a Hong Kong money service operator apply due diligence to a wire transfer of HKD 8,000?",
        as_of=AS_OF,
        approve="all",
    )
    assert r.answer.verdict is not None and r.answer.verdict.text.startswith("Yes.")
    assert r.final_answer.startswith("Short answer: Yes.")
    assert "HKD 8,000" in r.answer.verdict.text


def test_a_comparison_opens_with_a_table(wb: Workbench) -> None:
    r = wb.start("Compare the cash transaction thresholds of Australia and Switzerland.", as_of=AS_OF, approve="all")
    assert r.final_answer.startswith("| jurisdiction |")
    assert "| AU |" in r.final_answer and "| CH |" in r.final_answer
    assert "*:comparison" not in {d.subject for d in r.residual_deficiencies}


@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of Peru?",
        "How do I bake sourdough bread?",
        "What are Brazil's customer due diligence rules for crypto exchanges?",
    ],
)
def test_off_topic_or_absent_jurisdiction_ends_with_a_disclosed_gap_and_no_claims(wb: Workbench, question: str) -> None:
    r = wb.start(question, as_of=AS_OF, approve="all")
    assert r.status == "completed" and r.answer.claims() == []
    assert r.termination_reason == "only_unresolvable_remaining"
    assert "## Not answered by the corpus" in r.final_answer
    assert "holds no source" in r.final_answer  # for Peru and Brazil; for a bread recipe no document treats it
    assert r.residual_deficiencies and all(
        d.resolution_status == ResolutionStatus.unresolvable for d in r.residual_deficiencies
    )
    assert (r.quality_score or 0) < wb.settings.quality_threshold


def test_a_half_answered_question_cannot_pass_as_complete(wb: Workbench) -> None:
    r = wb.start(
        "What wire transfer due diligence threshold applies in Hong Kong and in Brazil?", as_of=AS_OF, approve="all"
    )
    assert fact_found(r.final_answer, "HKD 8,000 or more")
    assert {d.subject for d in r.residual_deficiencies} >= {"BR"}
    assert r.termination_reason != "no_open_deficiencies"
    assert (r.quality_score or 0) < wb.settings.quality_threshold


def test_a_question_about_a_replaced_instrument_keeps_it_as_history(wb: Workbench) -> None:
    r = wb.start("What happened to Canada's 2007 client identification rules?", as_of=AS_OF, approve="all")
    history = [c for _, c in r.answer.claims() if c.history]
    assert history and all("ca-rules-2007" in c.doc_ids for c in history)
    assert "History: " in r.final_answer and "CAD 3,000" in r.final_answer
    assert "ca-rules-2007" not in {
        d.subject for d in r.identified_deficiencies if d.deficiency_type == T.outdated_source
    }


def _critique(wb: Workbench, question: str, claims: list[Claim]) -> list[Any]:
    ctx = Deps.context_of(wb.store(), AS_OF)
    plan = wb.planner.plan(question, ctx).plan
    answer = Answer(sections=(AnswerSection(jurisdiction="CH", claims=tuple(claims)),))
    return OfflineCritic().critique(plan, answer, [], ctx).deficiencies


def test_a_wrong_figure_is_caught_against_the_quoted_passage_even_if_the_document_states_it_elsewhere(
    wb: Workbench,
) -> None:
    quote = "Swiss financial intermediaries must identify the contracting party for cash transactions of CHF 15,000 or more."
    wrong = Claim(
        text="Swiss financial intermediaries must identify the contracting party for cash transactions of "
        "CHF 25,000 or more.",
        plan_item_ids=("CH:threshold",),
        citations=(Quote(doc_id="ch-amla", chunk_id="ch-amla#0", quote=quote),),
    )
    found = _critique(wb, "What cash threshold applies in Switzerland?", [wrong])
    assert [d.deficiency_type for d in found if d.subject.endswith("CHF:25000")] == [T.incorrect_threshold]
    right = wrong.model_copy(update={"text": quote})
    assert not [
        d
        for d in _critique(wb, "What cash threshold applies in Switzerland?", [right])
        if d.deficiency_type == T.incorrect_threshold
    ]


def test_a_fabricated_quote_is_not_support(wb: Workbench) -> None:
    made_up = Claim(
        text="Swiss intermediaries must identify everyone.",
        plan_item_ids=("CH:obligation",),
        citations=(
            Quote(doc_id="ch-amla", chunk_id="ch-amla#0", quote="Swiss intermediaries must identify everyone."),
        ),
    )
    found = _critique(wb, "What must Swiss intermediaries do?", [made_up])
    kinds = {d.deficiency_type for d in found}
    assert T.insufficient_specificity in kinds
    assert "CH:obligation" in {d.subject for d in found} or "CH" in {d.subject for d in found}


def test_two_figures_for_the_same_rule_are_contradictory(wb: Workbench) -> None:
    quote = "Swiss financial intermediaries must identify the contracting party for cash transactions of CHF 15,000 or more."
    cite = (Quote(doc_id="ch-amla", chunk_id="ch-amla#0", quote=quote),)
    a = Claim(text="The cash identification threshold is CHF 15,000.", plan_item_ids=("CH:threshold",), citations=cite)
    b = Claim(text="The cash identification threshold is CHF 10,000.", plan_item_ids=("CH:threshold",), citations=cite)
    found = _critique(wb, "What cash threshold applies in Switzerland?", [a, b])
    assert T.contradictory_sources in {d.deficiency_type for d in found}


@pytest.mark.parametrize(
    "text,unit,value",
    [
        ("CAD 10,000 or more", "CAD", 10000),
        ("A$5,000", "AUD", 5000),
        ("HK$ 8,000", "HKD", 8000),
        ("CHF 15,000", "CHF", 15000),
        ("JPY 1 million", "JPY", 1_000_000),
        ("10,000 euros", "EUR", 10000),
    ],
)
def test_other_currencies_are_figures(text: str, unit: str, value: float) -> None:
    assert [(f.unit, f.value) for f in figures(text)] == [(unit, value)]


def test_an_ambiguous_dollar_sign_follows_the_jurisdiction_and_the_scorer_matches_codes() -> None:
    assert figures("C$ 10,000", hint=("CA",))[0].unit == "CAD"
    assert figures("$ 10,000", hint=("CA",))[0].unit == "CAD"
    assert figures("$ 10,000")[0].unit == "USD"
    assert fact_found("Reports are due for A$10,000 or more.", "AUD 10,000 or more")
    assert fact_found("Wires of HK$8,000 need due diligence.", "HKD 8,000")
    assert not fact_found("Wires of HKD 8,000 need due diligence.", "USD 8,000")


QUESTIONS = [
    "What client identification threshold applies to a Canadian money services business for international transfers?",
    "Compare the cash transaction thresholds of Australia and Switzerland.",
    "What must Hong Kong money service operators do for wire transfers and records?",
    "What happened to Canada's 2007 client identification rules?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_answers_are_whole_sentences_without_repeats(wb: Workbench, question: str) -> None:
    r = wb.start(question, as_of=AS_OF, approve="all")
    assert r.answer.claims()
    assert duplicate_sentences(r.answer) == 0 and cut_sentences(r.answer) == 0
    assert all(c.text.rstrip()[-1] in ".!?)" for _, c in r.answer.claims())
    assert not [c.text for _, c in r.answer.claims() if c.kind == "finding" and is_anaphoric(sentences(c.text)[0])]
    words = r.answer.word_count() / max(1, len(r.plan.items))
    assert words <= 120


def test_a_member_state_is_answered_from_the_bloc_that_covers_it_and_its_own_law_is_disclosed(tmp_path: Path) -> None:
    from core.domain.documents import DocumentMeta

    bloc = DocumentMeta(
        id="bloc-reg",
        title="Bloc payments regulation summary",
        jurisdiction="EU",
        extra={"covers": ["DE", "FR"]},
        effective=AS_OF.replace(year=2020),
    )
    docs = [(bloc, ["Payment firms in the bloc must identify owners holding 25% or more of a corporate customer."])]
    wb = Workbench(Settings(data_dir=tmp_path), store=KeywordStore(docs), persistence=memory_persistence())
    r = wb.start("Which owners must a German payment firm identify?", as_of=AS_OF, approve="all")
    de = r.plan.jurisdiction("DE")
    assert de is not None and de.via == "EU" and not de.in_corpus and de.named_as == ("German",)
    assert [s.jurisdiction for s in r.answer.sections] == ["EU"] and fact_found(r.final_answer, "25% or more")
    assert any(
        d.subject == "DE" and d.resolution_status == ResolutionStatus.unresolvable for d in r.residual_deficiencies
    )
    assert "national law" in r.final_answer


def test_the_comparison_table_stays_a_table_and_its_cells_stay_inert() -> None:
    from core.domain.answer import render_markdown
    from core.domain.plan import PlanItem, PlannedJurisdiction, ResearchPlan
    from core.domain.safe_markdown import answer_markdown
    from tests.inert import HOSTILE, live_markup

    plan = ResearchPlan(
        question="q",
        as_of=AS_OF,
        comparison=True,
        jurisdictions=(
            PlannedJurisdiction(code="AU", name="Australia"),
            PlannedJurisdiction(code="CH", name="Switzerland"),
        ),
        items=(
            PlanItem(id="AU:scope", jurisdiction="AU", aspect=Aspect.scope, ask="a", query="q"),
            PlanItem(id="CH:scope", jurisdiction="CH", aspect=Aspect.scope, ask="a", query="q"),
        ),
    )
    claim = lambda code: Claim(text=HOSTILE, plan_item_ids=(f"{code}:scope",))  # noqa: E731
    answer = Answer(
        sections=(
            AnswerSection(jurisdiction="AU", claims=(claim("AU"),)),
            AnswerSection(jurisdiction="CH", claims=(claim("CH"),)),
        )
    )
    shown = answer_markdown(render_markdown(answer, plan), heading_shift=1)
    rows = [line for line in shown.splitlines() if line.startswith("|")]
    assert rows[0].startswith("| jurisdiction |") and rows[1].startswith("|---|") and len(rows) == 4
    assert live_markup(shown) == []


def compared_plan(question: str, aspect: Aspect) -> Any:
    """A plan comparing the UK and the US on one aspect."""
    from core.domain.plan import PlanItem, PlannedJurisdiction, ResearchPlan

    return ResearchPlan(
        question=question,
        as_of=AS_OF,
        comparison=True,
        jurisdictions=(PlannedJurisdiction(code="GB", name="UK"), PlannedJurisdiction(code="US", name="US")),
        items=tuple(
            PlanItem(id=f"{code}:{aspect.value}", jurisdiction=code, aspect=aspect, ask="a", query="q")
            for code in ("GB", "US")
        ),
    )


def test_a_time_limit_cell_holds_a_period_never_a_sentence_without_one() -> None:
    from core.domain.answer import comparison_rows

    plan = compared_plan("q", Aspect.deadline)
    tribunal = Claim(
        text="A firm must tell the regulator if it loses a tribunal claim.", plan_item_ids=("GB:deadline",)
    )
    no_period = Claim(text="An employee may complain to the labour office.", plan_item_ids=("US:deadline",))
    period = Claim(text="The complaint must be filed within 180 days.", plan_item_ids=("US:deadline",))
    answer = Answer(
        sections=(
            AnswerSection(jurisdiction="GB", claims=(tribunal,)),
            AnswerSection(jurisdiction="US", claims=(no_period, period)),
        )
    )
    rows = comparison_rows(answer, plan)
    assert rows[1] == ["GB", "not stated (see GB below)"]
    assert rows[2][1].startswith("within 180 days")


def test_a_cell_of_an_aspect_the_plan_does_not_ask_of_that_place_says_so() -> None:
    # a model planner asked the scope of the US only: the table said "not found in the corpus" for each state, on
    # an answer that ended with nothing open
    from core.domain.answer import comparison_rows

    plan = compared_plan("q", Aspect.deadline)
    plan = plan.model_copy(
        update={
            "items": (*plan.items, PlanItem(id="US:scope", jurisdiction="US", aspect=Aspect.scope, ask="a", query="q"))
        }
    )
    answer = Answer(
        sections=(
            AnswerSection(
                jurisdiction="GB", claims=(Claim(text="Report within 3 days.", plan_item_ids=("GB:deadline",)),)
            ),
            AnswerSection(jurisdiction="US", claims=(Claim(text="Banks are covered.", plan_item_ids=("US:scope",)),)),
        )
    )
    rows = comparison_rows(answer, plan)
    assert rows[1][rows[0].index(Aspect.scope.label)] == "not asked"
    assert rows[2][rows[0].index(Aspect.deadline.label)] == "not found in the corpus"


def test_a_cell_never_cuts_a_sentence_at_an_abbreviation() -> None:
    # "Law No" had stood in the scope column, cut from "Law No. 2017-399 of 27 March 2017 ... inserted ..."
    from core.domain.answer import comparison_rows

    plan = compared_plan("q", Aspect.scope)
    law = Claim(
        text="Law No. 2017-399 of 27 March 2017 inserted Articles L. 225-102-4 and L. 225-102-5 into the Commercial "
        "Code. It covers large companies.",
        plan_item_ids=("GB:scope",),
    )
    us = Claim(text="The Act covers issuers.", plan_item_ids=("US:scope",))
    answer = Answer(
        sections=(AnswerSection(jurisdiction="GB", claims=(law,)), AnswerSection(jurisdiction="US", claims=(us,)))
    )
    rows = comparison_rows(answer, plan)
    assert rows[1][1].startswith("Law No. 2017-399 of 27 March 2017 inserted Articles")


def test_a_cell_taking_a_figure_from_a_sentence_that_doubts_it_says_so() -> None:
    # "up to EUR 1,500" had stood in the thresholds column as settled, from "(the amounts, reported as up to EUR
    # 1,500 ..., are not verified)"
    from core.domain.answer import comparison_rows

    plan = compared_plan("q", Aspect.threshold)
    doubted = Claim(
        text="Failing to give the document is fined (the amounts, reported as up to EUR 1,500, are not verified).",
        plan_item_ids=("GB:threshold",),
    )
    settled = Claim(text="Loans of more than USD 10,000 must be reported.", plan_item_ids=("US:threshold",))
    answer = Answer(
        sections=(
            AnswerSection(jurisdiction="GB", claims=(doubted,)),
            AnswerSection(jurisdiction="US", claims=(settled,)),
        )
    )
    rows = comparison_rows(answer, plan)
    assert rows[1][1].startswith("up to EUR 1,500, not verified")
    assert rows[2][1].startswith("more than USD 10,000") and "not verified" not in rows[2][1]
    dated = Claim(  # the date is settled: another sentence of the claim doubts something else
        text="The rule comes from Law 89-1008 of 31 December 1989. The decree's start (reported as 1991) is not verified.",
        plan_item_ids=("GB:date",),
    )
    other = Claim(text="The rule took effect on 1 May 2016.", plan_item_ids=("US:date",))
    both = Answer(
        sections=(
            AnswerSection(jurisdiction="GB", claims=(dated,)),
            AnswerSection(jurisdiction="US", claims=(other,)),
        )
    )
    rows = comparison_rows(both, compared_plan("q", Aspect.date))
    assert rows[1][1] == "31 December 1989"


@pytest.mark.parametrize(
    ("question", "cell"),
    [
        ("What is the maximum prison term for bribery in the UK and the US?", "up to five years"),
        ("What is the maximum fine for bribery in the UK and the US?", "up to USD 2 million"),
    ],
)
def test_a_penalty_cell_holds_what_the_question_asks_of_the_penalty(question: str, cell: str) -> None:
    """ "What is the maximum prison term ...?" showed the US cell "up to USD 2 million", the company's fine stated
    before the individual's term in the same claim."""
    from core.domain.answer import comparison_rows

    plan = compared_plan(question, Aspect.penalty)
    both = Claim(
        text="A company faces a fine of up to USD 2 million. An individual faces imprisonment of up to five years.",
        plan_item_ids=("US:penalty",),
    )
    gb = Claim(text="An individual faces imprisonment of up to 10 years.", plan_item_ids=("GB:penalty",))
    answer = Answer(
        sections=(AnswerSection(jurisdiction="GB", claims=(gb,)), AnswerSection(jurisdiction="US", claims=(both,)))
    )
    assert comparison_rows(answer, plan)[2][1] == cell


def test_citations_keep_the_quoted_passages_and_their_own_ids(wb: Workbench) -> None:
    from dataclasses import replace

    from core.domain.documents import Chunk
    from core.engines.offline import citations_for

    ctx = Deps.context_of(wb.store(), AS_OF)
    jsonl = {"ch-amla#1": Chunk(doc_id="ch-amla", chunk_index=1, text="x", metadata={"passage_id": "art-9.2"})}
    ctx = replace(ctx, chunk=jsonl.get)
    cite = lambda chunk: Quote(doc_id="ch-amla", chunk_id=chunk, quote="q")  # noqa: E731
    answer = Answer(
        sections=(
            AnswerSection(
                jurisdiction="CH",
                claims=(
                    Claim(text="a.", citations=(cite("ch-amla#0"),)),
                    Claim(text="b.", citations=(cite("ch-amla#1"),)),
                ),
            ),
        )
    )
    [record] = citations_for(answer, ctx)
    assert record.chunk_ids == ("ch-amla#0", "ch-amla#1") and record.passage_ids == ("art-9.2",)


def test_a_question_asking_two_things_gets_a_verdict_for_each(wb: Workbench) -> None:
    r = wb.start(
        "Must Canadian money services businesses verify clients for international transfers of CAD 1,000, "
        "and must they verify clients for domestic transfers under CAD 1,000?",
        as_of=AS_OF,
        approve="all",
    )
    verdict = r.answer.verdict
    assert verdict is not None and verdict.text.startswith("(1) Yes.") and " (2) No. " in verdict.text
    assert "need not verify clients for domestic transfers" in verdict.text.split("(2)")[1]


def test_the_items_a_place_has_no_source_for_are_disclosed_in_one_line() -> None:
    """An EU anti-corruption question listed four lines, one per item, each "The corpus holds no source stating ...
    for European Union."; one line per place says the same, and other disclosures stay as they are."""
    from core.domain.answer import GAP_HEADING, Gap, gap_groups

    answer = Answer(
        gaps=(
            Gap(plan_item_id="IT:threshold", text="For Italy, the corpus holds EU sources, which apply there."),
            Gap(plan_item_id="EU:threshold", text="The corpus holds no source stating the figures for European Union."),
            Gap(plan_item_id="EU:penalty", text="The corpus holds no source stating the penalties for European Union."),
            Gap(
                plan_item_id="US:date",
                text="The corpus holds no source stating when the rules apply for United States.",
            ),
        )
    )
    [(heading, gaps)] = gap_groups(answer)
    assert heading == GAP_HEADING
    assert [g.text for g in gaps] == [
        "For Italy, the corpus holds EU sources, which apply there.",
        "The corpus holds no source stating, for European Union: the figures; the penalties.",
        "The corpus holds no source stating when the rules apply for United States.",
    ]
