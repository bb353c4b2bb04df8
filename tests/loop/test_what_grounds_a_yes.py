"""What a Yes rests on. A yes/no asked of every or all of something needs a sentence that says it of all of them:
"Is a Proposition 65 warning required for every product sold in California?" was "Yes." from "Warnings may be
placed on the product label ...", a sentence on where a warning goes. A thing "left out of" a rule is outside it
("Does the French durability index apply to smartphones?" was "Yes." from "Smartphones ... were left out of the
durability index"), and a bill introduced to extend an act does not extend it ("Does New York's Digital Fair Repair
Act cover home appliances?" was "Yes." from "Bills have been introduced to extend the Act to home appliances").
Plain documents built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

import pytest

from core.engines.offline.verdicts import says_of_all, universal_asked
from tests.loop.plain_corpora import ask_plain, plain_doc

WARNINGS = plain_doc(
    "us-ca-proposition-99-warnings",
    "California: Proposition 99 - clear warnings for listed widget chemicals in consumer products, civil penalties",
    "US-CA",
    date(1988, 11, 5),
)
WARNINGS_TEXT = [
    "Warnings may be placed on the product label, on a shelf sign or, for internet sales, on the product display "
    'page before purchase. A shorter "short-form" warning may be used on product labels. WCA has amended the '
    "short-form rules to require the name of at least one chemical, with a transition period (the dates of the "
    "amendment and its transition period are not verified).",
    "The warning requirement applies to businesses with 10 or more employees. Businesses with fewer than 10 "
    "employees are exempt. No warning is needed where the exposure falls below the safe harbor level.",
]


def test_every_asked_is_no_yes_from_a_sentence_on_some(tmp_path: Path) -> None:
    r = ask_plain(
        tmp_path,
        [(WARNINGS, WARNINGS_TEXT)],
        "Is a Proposition 99 warning required for every product sold in California?",
    )
    assert r.answer.verdict is None, r.answer.verdict
    assert any(g.plan_item_id == "*:verdict" for g in r.answer.gaps), r.answer.gaps


@pytest.mark.parametrize(
    ("question", "nouns"),
    [
        ("Is a warning required for every product sold in California?", {"product"}),
        ("Must all member states report every year?", {"member"}),
        ("Do all of the firms need a licence?", {"firm"}),
        ("Must the report be filed every three years?", set()),
    ],
)
def test_what_a_yes_no_asks_of_every_one(question: str, nouns: set[str]) -> None:
    assert universal_asked(question) == nouns


@pytest.mark.parametrize(
    ("sentence", "of_all"),
    [
        ("Every consumer product sold in XY must carry a warning.", True),
        ("Any product offered to consumers needs a warning.", True),
        ("Products must carry a warning before sale.", True),
        ("A product placed on the market shall carry a warning.", True),
        ("Warnings may be placed on the product label or on a shelf sign.", False),
        ("The warning requirement applies to businesses with 10 or more employees.", False),
        ("Products with a battery above 5 kg must carry a warning.", False),
        ("A warning is due whether the product is sold in a shop or online.", True),
    ],
)
def test_whether_a_sentence_says_it_of_every_one(sentence: str, of_all: bool) -> None:
    assert says_of_all({"product"}, sentence) is of_all


@pytest.mark.parametrize(
    ("title", "texts", "question", "expected"),
    [
        pytest.param(
            "XY: widget act",
            [
                "Since 8 January 2025, televisions and washing machines sold in XY must display a widget durability "
                "index. Smartphones and tablets were left out of the widget durability index because the energy label "
                "for those products applies from 20 June 2025."
            ],
            "Does the XY widget durability index apply to smartphones?",
            "No.",
            id="left-out-of",  # the French index "left out" smartphones: was "Yes."
        ),
        pytest.param(
            "XY: Widget Fair Repair Act",
            [
                "The Widget Fair Repair Act requires manufacturers to make parts, tools and documentation available to "
                "owners and independent repairers on fair and reasonable terms.",
                "The Act does not apply to motor vehicles, medical devices, home appliances or farm equipment.",
                "Bills have been introduced to extend the Act to home appliances and to ban parts pairing; whether any "
                "of them has been enacted is not verified here.",
            ],
            "Does the XY Widget Fair Repair Act cover home appliances?",
            "No.",
            id="bill-introduced",  # New York's act: "Bills have been introduced to extend ..." was "Yes."
        ),
        pytest.param(
            "XY: widget act",
            [
                "Manufacturers of electronic widgets priced at XYD 100 or more must provide parts, tools and "
                "documentation for seven years. Alarm systems, video game consoles and farm widgets are excluded."
            ],
            "Does the XY widget repair duty act cover video game consoles?",
            "No.",
            id="are-excluded",  # SB 244: "... video game consoles ... are excluded." was "Yes."
        ),
        pytest.param(
            "XY: widget act",
            [
                "Since 1 January 2021, sellers of widgets in XY must display a widget repairability index. The exact "
                "date on which the widget repairability index stopped being required for phones is not verified here."
            ],
            "Is the XY widget repairability index still in force for washing machines?",
            None,
            id="not-verified",  # the French index: "No." from "The exact date ... is not verified here."
        ),
        pytest.param(
            "XY: widget act",
            [
                "Employers with 250 or more workers must report on the widget pay gap by 7 June 2027 and every year "
                "thereafter. Employers with 100 to 249 workers must report every three years."
            ],
            "Must all employers in XY report their widget pay gap every year?",
            None,
            id="duty-of-some",  # the EU pay gap: "Yes." from the duty of employers with 250 or more workers
        ),
        pytest.param(
            "XY: widget act",
            ["Every widget sold in XY must carry a safety label in the official language. Fines reach EUR 5,000."],
            "Must every widget sold in XY carry a safety label?",
            "Yes.",
            id="said-of-every-one",
        ),
    ],
)
def test_what_a_yes_or_no_rests_on(
    tmp_path: Path, title: str, texts: list[str], question: str, expected: str | None
) -> None:
    act = plain_doc("xy-widget-act", title, "XY", date(2021, 1, 1))
    verdict = ask_plain(tmp_path, [(act, texts)], question).answer.verdict
    if expected is None:
        assert verdict is None, verdict
    else:
        assert verdict is not None and verdict.text.startswith(expected), verdict


def _payment_acts() -> list:
    directive = plain_doc(
        "xy-widget-late-payment-directive", "XY: widget late payment directive", "XY", date(2013, 3, 16)
    )
    proposal = plain_doc(
        "xy-widget-late-payment-proposal",
        "XY: proposed widget late payment regulation",
        "XY",
        date(2023, 9, 12),
        status="proposed",
    )
    return [
        (
            directive,
            [
                "Public authorities must pay widget invoices within 30 calendar days of receiving the invoice. Member "
                "States may allow up to 60 calendar days for public authorities providing health care, and a contract "
                "may set a period longer than 30 days only where this is expressly agreed. In no case may a public "
                "authority's payment period exceed 60 calendar days."
            ],
        ),
        (
            proposal,
            [
                "The Commission proposed a strict maximum payment period of 30 calendar days for all widget "
                "transactions, both between businesses and from public authorities to businesses."
            ],
        ),
    ]


def test_a_rule_in_force_answers_before_a_proposal_and_its_exceptions_bar_a_yes_to_all(tmp_path: Path) -> None:
    # "Must all public authorities in the EU pay invoices within 30 days?" was "No, only proposed" from the late
    # payment proposal: the directive's sentence had been set aside for stating "longer than 30 days" beside the
    # asked "within 30 days", and its "In no case may ... exceed 60 days" read as a denial
    plain = ask_plain(
        tmp_path / "a", _payment_acts(), "Must public authorities in XY pay widget invoices within 30 days?"
    )
    verdict = plain.answer.verdict
    assert verdict is not None and verdict.text.startswith("Yes."), verdict
    assert verdict.doc_ids == ("xy-widget-late-payment-directive",)
    every = ask_plain(
        tmp_path / "b", _payment_acts(), "Must all public authorities in XY pay widget invoices within 30 days?"
    )
    assert every.answer.verdict is None, every.answer.verdict  # some may take 60 days: neither Yes nor "proposed"
