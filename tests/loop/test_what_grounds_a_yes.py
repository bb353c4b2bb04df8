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

from core.engines.offline.verdicts import (
    asked_change,
    asker_role,
    binds_another,
    says_of_all,
    says_of_some,
    universal_asked,
)
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
    ("nouns", "sentence", "of_some"),
    [
        ({"employer"}, "Employers with 25 or more employees must include a pay range in job postings.", True),
        ({"employer"}, "Every employer must include a pay range in job postings.", False),
        ({"bank"}, "Credit institutions with assets above EUR 1 billion must report.", False),  # says nothing of banks
    ],
)
def test_whether_a_sentence_says_it_of_some_it_names(nouns: set[str], sentence: str, of_some: bool) -> None:
    assert says_of_some(nouns, sentence) is of_some


@pytest.mark.parametrize(
    ("sentence", "another"),
    [
        ("A manufacturer or importer that learns of a serious accident must report it within 10 days.", True),
        ("Manufacturers, distributors and retailers must report a serious accident within 24 hours.", False),
        ("Any person who learns of a serious accident must report it.", False),
        ("Serious accidents must be reported within 10 days.", False),  # what is to be done, by whoever
        ("It must report within 10 days.", False),
        ("Within two days of learning of it, the business must inform the Minister.", False),
        (
            "In addition, the manufacturer or, if the manufacturer carries on business outside XY, the importer must "
            "provide the Minister with a written report within 10 days.",
            True,
        ),
    ],
)
def test_whose_duty_a_sentence_states(sentence: str, another: bool) -> None:
    role = asker_role("We run electronics shops. As the retailer, must we report this accident within 10 days?")
    assert role == {"retailer"}
    assert binds_another(role, sentence) is another


@pytest.mark.parametrize(
    ("question", "role"),
    [
        (
            "We are a Canadian retailer, not the manufacturer, and a kettle we sold burned a child. Must we report?",
            "retailer",
        ),
        ("Do we, as a retailer, have to report this to the agency?", "retailer"),
        ("We are a small online retailer based in Lyon. Must we register?", "retailer"),
        ("Must retailers report serious accidents?", None),
    ],
)
def test_the_capacity_the_asker_asks_in(question: str, role: str | None) -> None:
    assert asker_role(question) == ({role} if role else set())


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
            "XY: widget rider act",
            [
                "A new provision presumes that an employment relationship exists for persons who deliver widgets "
                "through a digital platform. The widget presumption covers delivery only; ride-hailing drivers and "
                "other platform workers remain subject to the general test of dependence."
            ],
            "Does the XY widget presumption of employment apply to ride-hailing drivers?",
            "No.",
            id="covers-some-only",  # Spain's Ley Rider: "covers delivery only; ride-hailing ..." was "Yes."
        ),
        pytest.param(
            "XY: widget promotion rules",
            [
                "Widget promotions to consumers must be fair, clear and not misleading. Incentives to invest, such as "
                "refer-a-friend bonuses, are banned."
            ],
            "Are XY widget firms allowed to offer refer-a-friend bonuses in their promotions?",
            "No.",
            id="banned-in-the-passive",  # the FCA's crypto rules: no verdict, "are banned" was not read as a ban
        ),
        pytest.param(
            "XY: widget scam reimbursement requirement",
            [
                "The widget requirement protects consumers, microenterprises and charities. It covers payments made "
                "on or after 7 October 2024 between accounts held in XY. It does not cover international payments, "
                "payments by card or cheque, or payments made for an unlawful purpose."
            ],
            "Does the XY widget scam reimbursement requirement cover card payments?",
            "No.",
            id="does-not-cover-after-two-its",  # UK APP scams: the third sentence's antecedent is two back
        ),
        pytest.param(
            "XY: widget payment terms",
            [
                "The widget payment period agreed between businesses may not exceed 60 days from the date the invoice "
                "is issued. For periodic widget invoices, the period may not exceed 45 days from the invoice date."
            ],
            "Can an XY supplier let a business customer pay widget invoices at 90 days?",
            "No.",
            id="beyond-the-limit",  # France's 60-day cap: no verdict, the sentence never states 90 days
        ),
        pytest.param(
            "XY: widget payment terms",
            [
                "The widget payment period agreed between businesses may not exceed 60 days from the date the invoice "
                "is issued. For periodic widget invoices, the period may not exceed 45 days from the invoice date."
            ],
            "Can an XY supplier let a business customer pay widget invoices at 50 days?",
            None,
            id="within-one-limit-beyond-another",  # 50 days: within the general cap, beyond the periodic one
        ),
        pytest.param(
            "XY: widget sales act",
            [
                "Where the consumer chooses repair, the seller's widget liability period is extended once by 12 "
                "months. The widget repair obligation applies after the seller's legal liability has ended as well as "
                "before."
            ],
            "Under XY sales law, does choosing repair now extend the seller's widget liability by 12 months?",
            "Yes.",
            id="ended-in-a-clause-of-time",  # "No." from "... after the seller's legal liability has ended ..."
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
            "No.",
            id="duty-of-some",  # the EU pay gap: "Yes." from the duty of employers with 250 or more workers
        ),
        pytest.param(
            "XY: widget packaging act",
            [
                "A small widget producer is exempt from the widget program. A producer is a small widget producer if "
                "it has gross revenue of less than XYD 5 million in the preceding year, or if it distributes less than "
                "1 ton of widgets in XY each year."
            ],
            "Are small widget producers with less than XYD 5 million in gross revenue exempt from XY's widget program?",
            "Yes.",
            id="exempt-then-defined",  # Oregon's small producers: "No." read from the definition alone
        ),
        pytest.param(
            "XY: widget packaging act",
            [
                "Charities are exempt from the widget program. Widget producers with gross revenue of XYD 5 million "
                "or more must join the widget program and pay its fees."
            ],
            "Are widget producers with XYD 6 million in gross revenue exempt from the XY widget program?",
            "No.",
            id="others-exempt-duty-binds",
        ),
        pytest.param(
            "XY: widget dealers act",
            ["The XY Widget Agency publishes a list of the widget dealers registered with it, updated every month."],
            "Does XY require widget dealers to register with the XY Widget Agency?",
            None,
            id="require-to-needs-a-duty",  # "require X to" was not read as asking of a duty: "Yes." from a list
        ),
        pytest.param(
            "XY: widget leave act",
            [
                "Widget leave is paid leave for both parents. Employed parents who meet the contribution requirements "
                "receive the widget benefit, equal to 100% of their regulatory base. It is paid directly by the XY "
                "Widget Institute, not by the employer. Workers under 21 need no minimum contribution period."
            ],
            "Is it true that in XY the employer pays the widget benefit a parent receives during widget leave?",
            "No.",
            id="denied-right-after",  # Spain's INSS pays, "not by the employer": no verdict, the "It ..." unread
        ),
        pytest.param(
            "XY: widget packaging act",
            ["Registration in the XY widget register is free of charge and cannot be delegated to a service provider."],
            "Can a producer delegate its XY widget registration to a service provider?",
            "No.",
            id="cannot-be-delegated",  # Germany's LUCID: "Yes.", "delegated" and "delegate" stemmed apart
        ),
        pytest.param(
            "XY: widget clause rule",
            [
                "Employers should treat widget clauses as a matter of state law. Claims that a federal ban on widget "
                "clauses is in force, or that employers must notify workers under the rule, are wrong."
            ],
            "Is the federal widget clause ban in force for XY employers?",
            "No.",
            id="ban-in-force",  # the FTC rule: "Yes." read as whether something is banned, from the word "ban"
        ),
        pytest.param(
            "XY: widget invoicing act",
            [
                "From 1 February 2026, large taxpayers must issue widget invoices in WSeF. Financial penalties for "
                "failing to issue an invoice in WSeF have been deferred and apply only from 1 January 2027."
            ],
            "Do WSeF penalties already apply in XY?",
            "No, not yet.",
            id="already-apply",  # Poland's KSeF penalties: "Yes." from "The obligation applies to taxpayers ..."
        ),
        pytest.param(
            "XY: widget waste act",
            [
                "Since 1 January 2022 it is prohibited to display on a widget or its packaging the terms "
                '"biodegradable" or "environmentally friendly" or any equivalent wording.'
            ],
            'Does XY ban printing the word "biodegradable" on a widget\'s packaging, for example on our bin liners '
            "sold in XY supermarkets?",
            "Yes.",
            id="for-example",  # France's AGEC ban: no verdict, the example's words counted as what must be grounded
        ),
        pytest.param(
            "XY: widget safety act",
            [
                "A manufacturer or importer of a widget that learns of a serious widget accident must report it to "
                "the XY Widget Agency within 10 days. Retailers who learn of a serious widget accident must endeavour "
                "to notify the manufacturer or importer."
            ],
            "As the retailer, must we report a serious widget accident to the XY Widget Agency within 10 days?",
            None,
            id="duty-of-another",  # Japan's 10-day report binds manufacturers and importers: was "Yes." to a retailer
        ),
        pytest.param(
            "XY: widget safety act",
            [
                "Within two days after learning of a widget incident, the business must provide the XY Minister with "
                "all the information in its control. In addition, the manufacturer or, if the manufacturer carries on "
                "business outside XY, the importer must provide the Minister with a written report within 10 days. "
                "Retailers must keep records of the person from whom they obtained each widget."
            ],
            "As a widget retailer, do we have to file the 10-day written widget incident report with the XY Minister?",
            None,
            id="figure-in-anothers-duty",  # Canada's 10-day report: "Yes." from the two-day duty quoted before it
        ),
        pytest.param(
            "XY: widget packaging act",
            ["A widget producer must register in the widget producer register of XY before it first sells there."],
            "As a widget brand, must we register in the widget producer register of XY?",
            "Yes.",
            id="role-the-law-never-names",  # a brand may be the producer: the law does not set brands apart
        ),
        pytest.param(
            "XY: widget safety act",
            [
                "Manufacturers, distributors and retailers of widgets must report a serious widget accident to the XY "
                "Widget Agency within 10 days."
            ],
            "As the retailer, must we report a serious widget accident to the XY Widget Agency within 10 days?",
            "Yes.",
            id="duty-of-the-asker",
        ),
        pytest.param(
            "XY: widget durability act",
            [
                "Since 5 October 2023, no person may trade in widgets for which obsolescence is planned, meaning "
                "widgets on which a technique aimed at reducing their normal operating life is used.",
                "The act also raised the penal fines for offences; the new amounts are not verified here.",
            ],
            "Does XY ban planned widget obsolescence, and since when?",
            "Yes.",
            id="no-person-may",  # Quebec's planned obsolescence ban: no verdict, "no person may" not read as a ban
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


def test_a_rule_in_force_answers_before_a_proposal_and_its_exceptions_answer_no_to_all(tmp_path: Path) -> None:
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
    verdict = every.answer.verdict  # some may take 60 days: No, quoting the exception, not "only proposed"
    assert verdict is not None and verdict.text.startswith("No.") and "60 calendar days" in verdict.text, verdict
    assert verdict.doc_ids == ("xy-widget-late-payment-directive",)


PAYMENT_ACT = plain_doc("xy-widget-payment-act", "XY: widget late payment act", "XY", date(1998, 11, 1))
CAP_PROPOSAL = plain_doc(
    "xy-widget-payment-proposal",
    "XY: proposals to cap widget payment terms",
    "XY",
    date(2025, 7, 31),
    status="proposed",
)
PAYMENT_RULE = (
    "Between businesses, a widget payment period of more than 60 days is effective only if it is expressly agreed and "
    "is not grossly unfair to the supplier."
)


def test_a_cap_asked_of_a_proposal_is_only_proposed(tmp_path: Path) -> None:
    # "Has the UK now capped business-to-business payment terms at 60 days ...?" got no verdict: "capped" was not
    # read as a change, so the question's facts (90-day terms) left the yes or no to the analyst
    docs = [
        (PAYMENT_ACT, [PAYMENT_RULE]),
        (CAP_PROPOSAL, ["Under the proposals, widget payment terms between businesses would be capped at 60 days."]),
    ]
    question = (
        "Our XY widget supply contracts give customers 90 days to pay, as expressly agreed. Has XY now capped "
        "business-to-business widget payment terms at 60 days?"
    )
    verdict = ask_plain(tmp_path, docs, question).answer.verdict
    assert verdict is not None and verdict.text.startswith("No, only proposed"), verdict


@pytest.mark.parametrize(
    ("question", "change"),
    [
        ("Has the UK now capped business-to-business payment terms at 60 days?", "capped"),
        ("Is her dismissal unfair, is the compensation capped, and how long does she have to claim?", None),
        ("Has XY extended the deadline to 2027?", "extended"),
    ],
)
def test_which_questions_ask_of_a_change(question: str, change: str | None) -> None:
    # "is the compensation capped?" asks whether there is a cap: read as a change, it drew "No, only proposed" from
    # a proposal on whistleblower rewards
    assert asked_change(question) == change


def test_a_proposal_says_nothing_of_what_may_still_be_done(tmp_path: Path) -> None:
    # "Can UK businesses still agree payment terms longer than 60 days?" was "No, only proposed" from the proposed
    # cap: a proposal to take a freedom away does not answer whether one has it now
    proposed = (
        "Under the proposals, widget payment terms between businesses would be capped at 60 days. Until then a widget "
        "payment period of more than 60 days is still possible where expressly agreed."
    )
    docs = [(PAYMENT_ACT, [PAYMENT_RULE]), (CAP_PROPOSAL, [proposed])]
    plain = ask_plain(tmp_path, docs, "Can XY businesses still agree widget payment terms longer than 60 days?")
    assert plain.answer.verdict is None, plain.answer.verdict
    assert any(g.plan_item_id.endswith("verdict") for g in plain.answer.gaps)
