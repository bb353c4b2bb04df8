"""Yes/no questions about a change ("Has X been repealed?") that a source in force answers by denying it. Plain
documents built here; the rules are illustrations."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from core.domain.answer import verdict_words
from core.domain.documents import DocumentMeta
from tests.loop.plain_corpora import ask_plain, plain_doc

DENIAL = "Neither the 2025 executive order nor the later guidelines repealed or amended the Widget Export Act."


def _ask(tmp_path: Path, passages: list[str], question: str) -> Any:
    """The finished run of the question on a corpus of one XY act summary with these passages."""
    act = plain_doc("xy-widget-export-act", "XY widget export act summary", "XY", date(1977, 12, 19))
    corpus: list[tuple[DocumentMeta, list[str]]] = [(act, passages)]
    return ask_plain(tmp_path, corpus, question)


def test_a_change_a_source_in_force_denies_is_no(tmp_path: Path) -> None:
    # no verdict had been given: a source in force answered only a change it stated as made
    passages = [
        "On 10 February 2025 an executive order paused new enforcement of the Widget Export Act in XY for 180 days. "
        f"{DENIAL} Charges can still be brought within five years of the conduct."
    ]
    question = (
        "We read that XY stopped enforcing the Widget Export Act in 2025. Has the Widget Export Act been repealed? "
        "What exactly happened?"
    )
    r = _ask(tmp_path, passages, question)
    assert verdict_words(r.answer.verdict) == {"*": "no"}
    assert r.answer.verdict is not None and DENIAL in r.answer.verdict.text


def test_a_sentence_denying_the_change_never_grounds_a_yes(tmp_path: Path) -> None:
    passages = [f"{DENIAL} The Widget Export Act remains in force in XY."]
    r = _ask(tmp_path, passages, "Has XY repealed the Widget Export Act?")
    assert verdict_words(r.answer.verdict) == {"*": "no"}


def test_a_change_made_beside_one_denied_is_still_a_yes(tmp_path: Path) -> None:
    made = "The 2024 amendment repealed the licence exemption for small exporters of the Widget Export Act."
    passages = [f"{made} It did not repeal the record-keeping duty."]
    r = _ask(tmp_path, passages, "Has XY repealed the licence exemption for small exporters?")
    assert verdict_words(r.answer.verdict) == {"*": "yes"}
    assert r.answer.verdict is not None and made in r.answer.verdict.text


PROPOSAL = plain_doc(
    "xy-widget-fraud-directive-proposal",
    "Proposed XY Directive on combating widget fraud (Commission proposal of 3 May 2023)",
    "XY",
    date(2023, 5, 3),
    status="proposed",
)
PROPOSED = (
    "The Commission published its proposal for a Directive on combating widget fraud on 3 May 2023. "
    "Companies would face fines of not less than 5% of their worldwide turnover. "
    "Until a directive is adopted, the rules in force remain the 2003 Framework Decision on widget fraud."
)
LABELS = plain_doc("xy-energy-label-regulation", "XY regulation on energy labels", "XY", date(2017, 8, 1))
LABELLED = (
    "As a regulation, it applies directly in all member states without transposition. The member states set "
    "penalties for infringements, which must be effective and dissuasive."
)
BINDING = (
    "Is XY's anti-widget-fraud directive already binding, so that member states must now fine companies a percentage "
    "of their worldwide turnover?"
)


def test_whether_a_proposed_instrument_is_binding_is_no_only_proposed(tmp_path: Path) -> None:
    # no verdict had been given: the proposal's sentences share too few of the question's words to ground one
    corpus = [(PROPOSAL, [PROPOSED]), (LABELS, [LABELLED])]
    r = ask_plain(tmp_path, corpus, BINDING)
    assert verdict_words(r.answer.verdict) == {"*": "no"}
    text = r.answer.verdict.text
    assert text.startswith("No, only proposed") and "3 May 2023" in text
    assert "the rules in force remain the 2003 Framework Decision" in text.split("In force:")[1]


def test_an_instrument_in_force_named_as_well_as_a_proposal_is_not_called_only_proposed(tmp_path: Path) -> None:
    act = plain_doc("xy-widget-fraud-directive", "XY Directive on combating widget fraud", "XY", date(2010, 1, 1))
    passages = ["The XY Directive on combating widget fraud requires member states to punish widget fraud."]
    corpus = [(PROPOSAL, [PROPOSED]), (act, passages)]
    r = ask_plain(tmp_path, corpus, "Is XY's directive on combating widget fraud binding?")
    assert r.answer.verdict is None or not r.answer.verdict.text.startswith("No, only proposed")


def test_an_open_question_after_a_yes_no_asks_no_change(tmp_path: Path) -> None:
    # "how long is the withdrawal period" had been read as a change asked ("withdraw"): "Yes" from the sentence on
    # the right to withdraw, while the EUR 150 loan is below the act's EUR 200 floor
    passages = [
        "Under section 5, the consumer has a right to withdraw from a consumer loan agreement. The rules on consumer "
        "loans do not apply to loans with a net loan amount of less than EUR 200. The withdrawal period is 14 days."
    ]
    question = (
        "An XY bank lends a consumer EUR 150 for three months. Does XY consumer loan law apply, and how long is the "
        "withdrawal period for an ordinary consumer loan in XY?"
    )
    r = _ask(tmp_path, passages, question)
    assert verdict_words(r.answer.verdict) != {"*": "yes"}


def test_a_change_only_a_bill_makes_is_no_beside_the_rule_in_force_not_beside_news_of_the_bill(tmp_path: Path) -> None:
    # the rule "in force" quoted had been the statute's sentence reporting the bill; quoting the bill's own
    # sentence instead, the lead's "37.5 hours" (from the bill's title) had been flagged as a misstated period,
    # and "37.5 hours" had been read as 5 hours
    bill = plain_doc(
        "xy-working-week-bill",
        "XY bill to cut the maximum working week from 40 to 37.5 hours (proposal, not adopted)",
        "XY",
        date(2025, 5, 6),
        status="proposed",
    )
    statute = plain_doc("xy-workers-statute", "XY workers statute summary", "XY", date(2015, 10, 23))
    news = "A bill to lower the maximum working week to 37.5 hours was presented in 2025 and is not law in force."
    rule = "The maximum ordinary working week in XY is 40 hours of actual work, calculated as an annual average."
    corpus: list[tuple[DocumentMeta, list[str]]] = [
        (bill, ["Until a reform is adopted and in force, the maximum ordinary working week in XY remains 40 hours."]),
        (statute, [f"{rule} {news}"]),
    ]
    r = ask_plain(tmp_path, corpus, "Has XY already cut the legal maximum working week to 37.5 hours?")
    assert verdict_words(r.answer.verdict) == {"*": "no"}
    assert r.answer.verdict is not None and news not in r.answer.verdict.text
    assert not [d for d in r.residual_deficiencies if "37.5" in d.description or "5 hours" in d.description]


LEVY_BILL = plain_doc(
    "us-widget-levy-bill",
    "US bill to raise the federal widget levy (proposal)",
    "US",
    date(2025, 3, 4),
    status="proposed",
)
LEVY_ACT = plain_doc("us-widget-levy-act", "US federal widget levy act summary", "US", date(2012, 1, 1))
NEW_YORK_LEVY = "From 1 January 2026 the New York widget levy is $9.00 per unit sold in the state."


def _levy_corpus() -> list[tuple[DocumentMeta, list[str]]]:
    return [
        (
            LEVY_BILL,
            [
                "The bill would raise the federal widget levy to $9.00 per unit. The bill has not been enacted. The "
                "federal widget levy remains $5.00 per unit, and the recycling credit remains the federal rule."
            ],
        ),
        (
            LEVY_ACT,
            [
                "Importers pay the federal widget levy on every unit they sell. Importers may deduct a recycling "
                "credit of $2.00 per unit from the levy."
            ],
        ),
        (
            plain_doc("us-ny-widget-levy", "New York widget levy law summary", "US-NY", date(2025, 6, 1)),
            [NEW_YORK_LEVY],
        ),
    ]


def test_a_change_asked_beside_another_yes_no_gets_a_verdict_per_part_and_the_proposals_own_rule_in_force(
    tmp_path: Path,
) -> None:
    # "Has the federal minimum wage been raised to $17? ... can we still use the $2.13 tipped cash wage?" got one
    # "No" for both parts, and the rule "in force" quoted beside the bill was New York's $17.00 rate
    question = (
        "Has the federal widget levy been raised to $9.00 per unit? What is the levy today, and can importers "
        "still deduct the recycling credit?"
    )
    r = ask_plain(tmp_path, _levy_corpus(), question)
    assert verdict_words(r.answer.verdict) == {"1": "no", "2": "yes"}
    said = r.answer.verdict.text if r.answer.verdict else ""
    assert "In force: The federal widget levy remains $5.00 per unit" in said and NEW_YORK_LEVY not in said


def test_a_word_of_change_qualifying_a_noun_asks_no_change_and_a_rule_that_no_longer_exists_is_no(
    tmp_path: Path,
) -> None:
    # "Is there still a lower minimum wage for employers with 25 or fewer employees?" was read as asking whether
    # the wage had been lowered, and answered "Yes" from the sentence saying that rate no longer exists
    passages = [
        "Since 1 January 2023 there has been a single widget levy rate: the lower rate that used to apply to "
        "importers with 25 or fewer employees no longer exists. The widget levy is $5.00 per unit for every importer."
    ]
    question = (
        "We are a small XY importer with 12 employees. Is there still a lower widget levy rate for importers with "
        "25 or fewer employees? What must our levy returns show?"
    )
    r = _ask(tmp_path, passages, question)
    assert verdict_words(r.answer.verdict) == {"*": "no"}
