"""An act named by its acronym and no place ("How long is QPIP paternity leave?", "Is FMLA leave paid?") is
answered from that act, though its title spells the name out and other places' law shares its words; and a duty a
source states decides a "Do employers have to ...?" though a later sentence spares others of it; "Is X taxable?"
needs a sentence saying it is taxable, or not. Plain documents built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

import pytest

from core.engines.offline.drafter import Grounds, _copula_predicate
from core.engines.offline.recall import acronyms, own_acronym
from tests.loop.plain_corpora import ask_plain, plain_doc


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("United States: Family and Medical Leave Act – 12 workweeks of unpaid leave", ["FMLA"]),
        ("Personal Information Protection and Electronic Documents Act", ["PIPEDA"]),
        ("Regulation (EU) 2016/679 General Widget Protection Regulation", ["GWPR"]),
        ("Council Directive 2010/18/EU of 8 March 2010 on parental leave", []),
        ("XY: Employment Insurance benefits", []),  # two letters name too many things
    ],
)
def test_the_initials_of_a_name_spelt_out_are_its_acronym(text: str, found: list[str]) -> None:
    assert acronyms(text) == found


def test_a_document_is_called_by_the_acronym_of_the_name_it_opens_with() -> None:
    assert own_acronym("United States: Family and Medical Leave Act – 12 workweeks", "") == ["FMLA"]
    # an act it implements, named further on, is not its own name
    assert own_acronym("Widget Reporting Requirements under the Corporate Widget Act", "") == ["WRR"]


PLAN = plain_doc(
    "xy-widget-parental-insurance-plan",
    "XY: Widget Parental Insurance Plan – five weeks of paternity benefits at 70%",
    "XY",
    date(2006, 1, 1),
)
PLAN_TEXT = (
    "Under the basic plan, the father receives five weeks of paternity benefits at 70% of average weekly income. "
    "Written notice must be given to the employer at least three weeks before the leave begins."
)
OTHER = plain_doc(
    "zz-statutory-paternity-leave", "ZZ: statutory paternity leave of one or two weeks", "ZZ", date(2003, 4, 6)
)
OTHER_TEXT = (
    "An eligible father may take one week or two weeks of paternity leave. Paternity pay is a flat weekly rate."
)


def test_an_act_named_by_its_acronym_answers_a_question_naming_no_place(tmp_path: Path) -> None:
    # "How long is QPIP paternity leave?" was answered from the UK's and France's paternity leave at 1.00: the
    # acronym named no document and other places' sentences outranked the plan's own
    r = ask_plain(tmp_path, [(PLAN, [PLAN_TEXT]), (OTHER, [OTHER_TEXT])], "How long is WPIP paternity leave?")
    assert r.plan.named_doc_ids == ("xy-widget-parental-insurance-plan",)
    cited = {d for _, c in r.answer.claims() for d in c.doc_ids}
    assert cited == {"xy-widget-parental-insurance-plan"}, cited
    assert "five weeks of paternity benefits" in r.answer.said()


def test_a_duty_stated_decides_though_a_later_sentence_spares_others(tmp_path: Path) -> None:
    # "Do employers in New York have to provide paid family leave?" was "No." from "Public employers need not
    # provide coverage", the sentence after "Private employers ... must provide Paid Family Leave coverage"
    act = plain_doc("xy-paid-widget-leave", "XY: paid widget leave law", "XY", date(2018, 1, 1))
    text = (
        "Private employers with one or more employees must provide paid widget leave coverage. An employee becomes "
        "eligible after 26 consecutive weeks of employment. Public employers need not provide coverage but may opt in."
    )
    r = ask_plain(tmp_path, [(act, [text])], "Do employers in XY have to provide paid widget leave?")
    verdict = r.answer.verdict
    assert verdict is not None and verdict.text.startswith("Yes."), verdict
    assert "Public employers need not provide coverage" in verdict.text  # the exception is quoted beside it


@pytest.mark.parametrize(
    ("part", "predicate"),
    [
        ("Is Widgetgeld taxable?", "taxable"),
        ("Is paternity leave paid now?", "paid"),
        ("Is a director liable?", "liable"),
        ("Is that still an accurate statement of the XY minimum?", ""),  # a noun, not an adjective
        ("Is it legal to record calls?", ""),
        ("Is there a statutory waiting period, or a franchise registration requirement", ""),  # asks what exists
    ],
)
def test_the_adjective_a_copula_question_asks(part: str, predicate: str) -> None:
    assert _copula_predicate(part) == predicate


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("Widget leave is paid at 100% of the base by the office.", True),
        ("Widget leave is unpaid.", False),
        ("Widgetgeld is tax-free.", False),
        ("There is no entitlement if the parents' taxable income exceeded EUR 175,000.", None),  # before a noun
        ("A mother is entitled to 16 weeks of Government-Paid Widget Leave.", True),  # what the name says it is
        ("Widgetgeld is claimed in writing from the office.", None),
    ],
)
def test_an_asked_adjective_is_read_where_it_is_said_of_something(sentence: str, said: bool | None) -> None:
    head = "taxable" if "tax" in sentence else "paid"
    assert Grounds(frozenset({head}), frozenset(), frozenset(), predicate=head).predicate_said(sentence) is said


def test_a_yes_needs_the_asked_adjective_and_its_negation_is_a_no(tmp_path: Path) -> None:
    # "Is Elterngeld taxable?" was "Yes." from "Elterngeld is claimed in writing from the Elterngeld office"
    act = plain_doc("xy-widgetgeld-act", "XY: Widgetgeld and widget leave act", "XY", date(2007, 1, 1))
    text = (
        "Widgetgeld is claimed in writing from the Widgetgeld office of the region. There is no entitlement if the "
        "parents' taxable income exceeded EUR 175,000. Widget leave is unpaid; Widgetgeld replaces part of the income."
    )
    taxable = ask_plain(tmp_path, [(act, [text])], "Is Widgetgeld taxable?")
    assert taxable.answer.verdict is None or not taxable.answer.verdict.text.startswith("Yes"), taxable.answer.verdict
    paid = ask_plain(tmp_path / "paid", [(act, [text])], "Is widget leave paid in XY?")
    assert paid.answer.verdict is not None and paid.answer.verdict.text.startswith("No."), paid.answer.verdict


def test_a_proposal_naming_the_adjective_before_a_noun_is_no_answer(tmp_path: Path) -> None:
    # "Is garden leave paid in the UK?" was "No, only proposed" from a proposal's "Employers would remain free to use
    # paid notice periods, garden leave, ...": it says nothing of whether garden leave is paid
    proposal = plain_doc(
        "xy-widget-clause-announcement",
        "XY: announcement to limit widget clauses to three months",
        "XY",
        date(2023, 5, 10),
        status="proposed",
    )
    text = "Employers would remain free to use paid notice periods, garden leave and non-solicitation clauses."
    r = ask_plain(tmp_path, [(proposal, [text])], "Is garden leave paid in XY?")
    assert r.answer.verdict is None or "only proposed" not in r.answer.verdict.text, r.answer.verdict
