"""Yes/no questions asked after facts that set the scene: when the asker means to act, exemptions of some cases
only, and a place made an adjective ("EU-wide"). Plain documents built here; the rules are illustrations."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from core.config import Settings
from core.domain.answer import render_markdown, verdict_words
from core.domain.documents import DocumentMeta
from core.engines.offline.on_facts import own_period
from core.engines.text import planned_within
from core.loop.deps import Deps
from core.persistence.checkpoints import memory_persistence
from core.service import Workbench
from tests.fakes import KeywordStore
from tests.loop.plain_corpora import RECALL_AS_OF, ask_plain, plain_doc, recall_corpus

FOURTEEN_DAYS = (
    "Every candidate receives our disclosure document exactly 14 days before signing. Would 14 days meet the minimum "
    "disclosure period in XY and in YZ? Yes or no for each."
)
BAR = "A foreign lender that is not licensed in XY may not offer loans to consumers in XY."
PLANNED = (
    "We are a foreign lender and want to start offering loans to consumers in XY next quarter. "
    "Do we need to be licensed in XY before we offer loans?"
)


def _workbench(tmp_path: Path, corpus: list[tuple[DocumentMeta, list[str]]]) -> Workbench:
    return Workbench(Settings(data_dir=tmp_path), store=KeywordStore(corpus), persistence=memory_persistence())


def _franchise_act(*passages: str) -> tuple[DocumentMeta, list[str]]:
    return plain_doc("xy-franchise-act", "XY franchise sales act summary", "XY", date(1981, 1, 1)), list(passages)


def _lending_act() -> tuple[DocumentMeta, list[str]]:
    return plain_doc("xy-lending-act", "XY consumer lending act summary", "XY", date(2018, 1, 1)), [BAR]


def test_the_time_an_asker_plans_for_is_read_in_days_ahead() -> None:
    assert planned_within("We want to start selling next quarter.") == 184
    assert planned_within("We open next week and expand next year.") == 731
    assert planned_within("We opened last year.") is None


def test_a_yes_no_after_facts_saying_when_the_asker_will_act_is_asked_of_the_rules(tmp_path: Path) -> None:
    # "next quarter" had made the facts a measure to hold the rules against: no verdict, a yes/no left to the
    # analyst, although no rule changes by then
    r = ask_plain(tmp_path, [_lending_act()], PLANNED)
    assert verdict_words(r.answer.verdict) == {"*": "yes"}
    assert r.answer.verdict is not None and BAR in r.answer.verdict.text


def test_a_rule_changing_before_the_planned_time_leaves_the_yes_no_to_the_analyst(tmp_path: Path) -> None:
    change = plain_doc(
        "xy-lending-amendment",
        "XY consumer lending amendment summary",
        "XY",
        RECALL_AS_OF + timedelta(days=60),
        status="not_yet_applicable",
    )
    corpus = [_lending_act(), (change, ["Foreign lenders will need no licence in XY to offer loans to consumers."])]
    r = ask_plain(tmp_path, corpus, PLANNED)
    assert r.answer.verdict is None
    assert "No yes or no on the facts the question sets out" in render_markdown(r.answer)


def test_an_exemption_of_some_cases_only_is_no_no(tmp_path: Path) -> None:
    # "No." had been read from "exempts some offers from registration", quoted after the 14-day rule
    law = plain_doc("xy-franchise-law", "XY franchise investment law summary", "XY", date(1971, 1, 1))
    passages = [
        "The franchisor must give the prospective franchisee the disclosure document at least 14 days before any "
        "binding agreement is signed. The Law exempts some offers from registration, though not from the duty to "
        "give the disclosure document."
    ]
    r = ask_plain(
        tmp_path,
        [(law, passages)],
        "Do franchisors have to register their franchise offering before they offer it in XY?",
    )
    assert verdict_words(r.answer.verdict) != {"*": "no"}


def test_a_place_made_an_adjective_is_read_as_that_place(tmp_path: Path) -> None:
    wb = _workbench(tmp_path, recall_corpus())
    question = "Consumer groups have called for EU-wide recall rules. Has the EU adopted a product safety regulation?"
    plan = wb.planner.plan(question, Deps.context_of(wb.store(), RECALL_AS_OF)).plan
    assert plan.not_understood == ()
    assert "EU" in plan.answer_codes()


def test_whether_a_duty_still_binds_is_no_by_the_sentence_stating_its_end(tmp_path: Path) -> None:
    # had been no verdict: "still have to register" was not read as asking whether the duty still holds, and the
    # sentences ranked first for the question's open part said nothing of registering
    law = plain_doc("xy-franchise-decree", "XY franchising decree summary", "XY", date(2010, 1, 1))
    ended = (
        "A decree of 7 December 2018 removed the obligation for franchisors to register and abolished the register, "
        "so franchisors no longer have to register in XY."
    )
    passages = [
        "Article 62 originally required franchisors to register in the Register of Franchisors before starting to "
        f"franchise in XY. {ended}",
        "At least 20 days before the franchise contract is signed, the franchisor must give the prospective "
        "franchisee the pre-contractual information in writing.",
        "The pre-contractual information must cover the franchisor's identity, its network of franchises and the "
        "essential terms of the franchise contract.",
        "The franchisor may require the prospective franchisee to keep the pre-contractual information confidential.",
        "Failure to give the pre-contractual information to a franchisee is an infringement sanctioned by the "
        "regional authorities.",
        "The franchisee may seek annulment of the franchise contract and damages if the franchisor's "
        "pre-contractual information was false.",
    ]
    r = ask_plain(
        tmp_path,
        [(law, passages)],
        "Do franchisors still have to register with the Register of Franchisors before selling franchises in XY, "
        "and what is the minimum period for giving a candidate the pre-contractual information?",
    )
    assert verdict_words(r.answer.verdict) == {"*": "no"}
    assert r.answer.verdict is not None and ended in r.answer.verdict.text


def _disclosure_law(code: str, days: str) -> tuple[DocumentMeta, list[str]]:
    doc = plain_doc(f"{code.lower()}-franchise-law", f"{code} franchise disclosure law summary", code, date(2005, 1, 1))
    rule = f"At least {days} before the contract is signed, the franchisor must give the disclosure document."
    return doc, [rule, "The franchisee may cancel within 14 days after signing if the document was late."]


def test_the_period_a_question_gives_of_its_own_act_is_read_with_what_it_runs_from() -> None:
    period = own_period(
        "Every candidate receives our disclosure document exactly 14 days before signing. Would that meet the "
        "minimum period in XY?"
    )
    assert period is not None and (period.low, period.then, period.text) == (14, "before", "14 days")
    assert own_period("Every candidate receives our document 14 days before signing. Must we register?") is None
    assert own_period("We notified at least 3 days after the incident. Were we in time?") is None  # a bound


def test_a_period_short_of_a_minimum_is_no_and_one_that_meets_it_yes_for_each_place(tmp_path: Path) -> None:
    # the asker's 14 days had been left to the analyst as a yes/no on the facts in every place
    corpus = [_disclosure_law("XY", "20 days"), _disclosure_law("YZ", "10 days")]
    r = ask_plain(tmp_path, corpus, FOURTEEN_DAYS)
    assert verdict_words(r.answer.verdict) == {"XY": "no", "YZ": "yes"}
    assert r.answer.verdict is not None and "No, for the 14 days the question states: At least 20 days before" in (
        r.answer.verdict.text
    )


def test_a_period_past_a_limit_is_no_and_a_unit_spread_decides_nothing(tmp_path: Path) -> None:
    hazard = plain_doc("xy-recall-act", "XY product recall act summary", "XY", date(2011, 6, 20))
    rule = "A producer must notify the regulator within 2 days after becoming aware of a serious hazard."
    late = ask_plain(
        tmp_path / "late",
        [(hazard, [rule])],
        "We notified the regulator 5 days after becoming aware of a serious hazard in our heaters. Were we in time "
        "under XY law?",
    )
    assert verdict_words(late.answer.verdict) == {"*": "no"}
    month = ask_plain(
        tmp_path / "month",
        [_disclosure_law("XY", "one month")],
        "Every candidate receives our disclosure document exactly 30 days before signing. Would 30 days meet the "
        "minimum disclosure period in XY?",
    )
    assert month.answer.verdict is None  # a month is 28 to 31 days: 30 days may fall short of it


def test_a_bounded_period_answers_the_minimum_asked_where_the_question_names_a_period(tmp_path: Path) -> None:
    # "The corpus holds no source stating the figures or thresholds that apply for XY" had been disclosed, while
    # the source states "at least one month": a period in words was no figure for a threshold item
    law = plain_doc("xy-partnership-law", "XY pre-contractual information law summary", "XY", date(2005, 1, 1))
    rule = (
        "At least one month before the agreement is concluded, the grantor must give the prospective partner the "
        "draft agreement and a separate disclosure document."
    )
    r = ask_plain(
        tmp_path,
        [(law, [rule])],
        "Every prospective partner receives the draft agreement and our disclosure document exactly 14 days before "
        "signing. Would 14 days meet the minimum period in XY, and what is the minimum there?",
    )
    rendered = render_markdown(r.answer)
    assert rule in rendered
    assert "holds no source stating the figures" not in rendered


def test_a_bounded_period_answers_a_minimum_asked_without_naming_a_period(tmp_path: Path) -> None:
    # "What is the minimum paid annual leave?" had been answered with the weekly rest rule alone: the leave rule's
    # "at least four weeks" was no figure for the threshold item, since the question named no period itself
    law = plain_doc("xy-working-time-law", "XY working time law summary", "XY", date(2003, 11, 4))
    leave = "Every worker is entitled to paid annual leave of at least four weeks."
    rest = "Every worker is entitled to a minimum uninterrupted rest period of 24 hours per seven-day period."
    r = ask_plain(tmp_path, [(law, [f"{rest} {leave}"])], "What is the minimum paid annual leave for workers in XY?")
    rendered = render_markdown(r.answer)
    assert leave in rendered
    assert rest not in rendered or rendered.index(leave) < rendered.index(rest)


def test_a_period_that_rules_of_several_lengths_count_from_its_event_gets_no_verdict(tmp_path: Path) -> None:
    # "Yes, for the 14 calendar days ..." had been read from the 7-day rule on altered agreements, while the
    # disclosure itself is due ten business days before signing: which rule the facts must meet is open
    act = _franchise_act(
        "The franchisor must give the offering prospectus to the prospective franchisee ten business days before "
        "the signing of any binding agreement.",
        "If the franchisor alters the standard agreement, it must give the completed agreement at least 7 calendar "
        "days before signing.",
    )
    r = ask_plain(
        tmp_path,
        [act],
        "We plan to hand over our offering prospectus 14 calendar days before the signing date. Does that timing "
        "comply with XY law?",
    )
    assert verdict_words(r.answer.verdict) == {}


def test_a_duty_is_not_denied_by_a_sentence_that_never_states_it(tmp_path: Path) -> None:
    # "No." to whether a franchisor has to register had been read from a sentence on when a prospectus is due
    act = _franchise_act(
        "The franchisor files its disclosure document with XY cover pages and must renew the registration every "
        "year. Exemptions exist for some large franchisors.",
        "The franchisor must give a copy of the offering prospectus to the prospective franchisee ten business days "
        "before the signing of any binding franchise agreement. A franchisor that follows only the federal timing "
        "of 14 calendar days may therefore breach the XY Act if it meets the prospect in person first.",
    )
    other = plain_doc("yz-franchise-act", "YZ franchise act summary", "YZ", date(1995, 11, 1))
    corpus = [act, (other, ["A franchise offering in YZ does not have to be registered."])]
    r = ask_plain(
        tmp_path,
        corpus,
        "Before offering franchises, does a franchisor have to register its franchise offering with a government "
        "authority in each of XY and YZ? Yes or no for each.",
    )
    assert verdict_words(r.answer.verdict).get("XY") != "no"


def test_a_bar_lifted_only_by_what_is_asked_says_that_it_is_needed(tmp_path: Path) -> None:
    law = plain_doc("xy-lending-act", "XY consumer lending act summary", "XY", date(2018, 1, 1))
    bar = "A foreign lender may not offer loans to consumers in XY until it has been licensed by the XY regulator."
    r = ask_plain(
        tmp_path,
        [(law, [bar])],
        "Does a foreign lender need to be licensed in XY before it offers loans to consumers?",
    )
    assert verdict_words(r.answer.verdict) == {"*": "yes"}


def test_a_contract_signed_concluded_or_entered_into_is_one_event(tmp_path: Path) -> None:
    # Belgium's "at least one month before the agreement is concluded" and Australia's "at least 14 days before the
    # prospective franchisee enters into a franchise agreement" had been left open for "14 days before signing"
    concluded = plain_doc("xy-partnership-law", "XY pre-contractual information law summary", "XY", date(2005, 1, 1))
    entered = plain_doc("yz-franchising-code", "YZ franchising code summary", "YZ", date(2025, 4, 1))
    corpus = [
        (
            concluded,
            ["At least one month before the agreement is concluded, the grantor must give the disclosure document."],
        ),
        (
            entered,
            [
                "At least 14 days before the prospective franchisee enters into a franchise agreement, the franchisor "
                "must give the disclosure document."
            ],
        ),
    ]
    r = ask_plain(tmp_path, corpus, FOURTEEN_DAYS)
    assert verdict_words(r.answer.verdict) == {"XY": "no", "YZ": "yes"}


VACATION = [
    "An employee with less than five years of employment is entitled to at least two weeks of vacation time after "
    "each vacation entitlement year. Since 1 January 2018 an employee with five or more years of employment is "
    "entitled to at least three weeks of vacation time after each vacation entitlement year."
]


def _vacation_act() -> tuple[DocumentMeta, list[str]]:
    return plain_doc(
        "xy-employment-standards-act", "XY employment standards act summary", "XY", date(2000, 9, 4)
    ), VACATION


def test_a_length_of_service_the_facts_give_is_held_against_the_rule_bounding_it(tmp_path: Path) -> None:
    # left to the analyst: only headcounts, amounts and periods before an event were held against a rule
    asked = "Our XY shop has employed Maria for {}. Is she entitled to three weeks of vacation?"
    r = ask_plain(tmp_path / "six", [_vacation_act()], asked.format("six years"))
    assert verdict_words(r.answer.verdict) == {"*": "yes"}
    assert r.answer.verdict is not None and "five or more years of employment" in r.answer.verdict.text
    for short in ("three years", "five years"):  # a bound not admitting it, or met only at its edge: no Yes
        r = ask_plain(tmp_path / short.replace(" ", "-"), [_vacation_act()], asked.format(short))
        assert verdict_words(r.answer.verdict) != {"*": "yes"}
