"""What a verdict's sentence must state: the yes/no's own words and figures, not an open question's, and not the
words a title uses to describe its act. Plain documents built here; the rules are illustrations."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from core.domain.answer import verdict_words
from core.engines.offline.sources import own_name
from core.engines.text import yes_no_parts, yes_no_text
from tests.loop.plain_corpora import ask_plain, plain_doc

ACT = plain_doc(
    "xy-working-time-act",
    "XY: Working Time Act (Arbeitszeitgesetz) – eight-hour day, 11 hours' rest, breaks and time recording",
    "XY",
    date(1994, 7, 1),
)
RECORDING = (
    "The Act itself requires the employer to record working time that exceeds eight hours on a working day and to "
    "keep these records for at least two years."
)
PASSAGES = [
    f"{RECORDING} After the end of daily working time employees must have an uninterrupted rest period of at least "
    "11 hours. Work must be interrupted by breaks of at least 30 minutes where working time is more than six hours."
]
RECORD_ASKED = (
    "Do we have to record the working hours of our employees in XY, and how long must we keep the records? What are "
    "the daily limits there, and how long must the rest be between two working days?"
)


def test_the_figures_of_an_open_question_are_no_grounds_of_the_yes_no() -> None:
    assert yes_no_text(RECORD_ASKED) == "Do we have to record the working hours of our employees in XY,"
    said = yes_no_text("A firm has 80 staff. Must it report within 10 days, and to whom?")
    assert said == "A firm has 80 staff. Must it report within 10 days,"


def test_a_title_describing_its_act_names_it_only_before_the_dash_or_colon() -> None:
    assert own_name(ACT) == "XY Working Time Act (Arbeitszeitgesetz)"
    labels = plain_doc("xy-labels", "Regulation (EU) 2017/1369: framework for energy labelling", "EU", date(2017, 8, 1))
    assert own_name(labels) == "Regulation (EU) 2017/1369"


def test_a_duty_asked_is_answered_by_the_sentence_stating_it(tmp_path: Path) -> None:
    # no verdict had been given: the two working days of an open part were asked of every verdict sentence, and
    # the title's description ("time recording") had taken "record" out of what the sentence must state
    r = ask_plain(tmp_path, [(ACT, PASSAGES)], RECORD_ASKED)
    assert verdict_words(r.answer.verdict) == {"*": "yes"}
    assert r.answer.verdict is not None and RECORDING in r.answer.verdict.text


def test_them_standing_for_a_noun_of_the_yes_no_does_not_refer_back_to_the_facts(tmp_path: Path) -> None:
    # "them" had been read as a third party the facts describe: no verdict, left to the analyst
    labour = plain_doc("xy-fair-labour-act", "XY Fair Labour Standards Act", "XY", date(1938, 6, 25))
    denial = (
        "The Act does not require payment for time not worked, such as vacations, sick leave or federal or other "
        "holidays. There is no requirement to give public holidays off or to pay a premium for working on them."
    )
    question = (
        "We are an XY company writing our first leave policy. Does XY federal law require us to give employees paid "
        "vacation, or to pay them for public holidays?"
    )
    r = ask_plain(tmp_path, [(labour, [denial])], question)
    assert verdict_words(r.answer.verdict) == {"*": "no"}
    assert r.answer.verdict is not None and denial in r.answer.verdict.text


def test_a_trailing_yes_no_is_asked_of_the_place_its_sentence_names(tmp_path: Path) -> None:
    # "No." had been read from YZ's sentence, for a yes/no asked of XY's regulator
    xy = plain_doc("xy-short-selling-rules", "XY short position reporting rules", "XY", date(2012, 9, 1))
    yz = plain_doc("yz-short-selling-rules", "YZ short position reporting rules", "YZ", date(2016, 1, 1))
    corpus = [
        (
            xy,
            ["A short position report must be filed with the regulator within two business days after the week ends."],
        ),
        (
            yz,
            [
                "YZ has no rule that requires an investor to notify a regulator of its individual net short position. "
                "Dealers report short positions to the regulator twice a month."
            ],
        ),
    ]
    question = (
        "Within how long must a short position report be filed with the regulator in XY, and can the regulator "
        "require more frequent reports? In YZ, how often must dealers report short positions?"
    )
    r = ask_plain(tmp_path, corpus, question)
    assert r.answer.verdict is None or "YZ has no rule" not in r.answer.verdict.text


def test_a_period_a_rule_bounds_is_no_size_of_whom_it_binds(tmp_path: Path) -> None:
    # "at least 14 days" had counted as a size the facts do not give: the yes/no was left to the analyst
    act = plain_doc(
        "xy-franchise-disclosure-act",
        "XY: Franchise Disclosure Act – disclosure 14 days before signing or payment, rescission and fair dealing",
        "XY",
        date(2000, 7, 1),
    )
    duty = (
        "A franchisor must give a prospective franchisee a disclosure document at least 14 days before the signing "
        "of any agreement relating to the franchise."
    )
    question = (
        "Our development agent in XY wants to sign up a new franchisee this Friday. So far the prospect has received "
        "nothing in writing except a brochure. Is a disclosure document legally required before signing in XY?"
    )
    r = ask_plain(tmp_path, [(act, [duty])], question)
    assert verdict_words(r.answer.verdict) == {"*": "yes"}
    assert r.answer.verdict is not None and duty in r.answer.verdict.text


def test_a_sentence_saying_there_is_none_answers_whether_there_is_one_no(tmp_path: Path) -> None:
    # "Yes." had been read from "No EU regulation or directive requires ...": no negation near an asked word
    block = plain_doc(
        "eu-vertical-block-exemption",
        "Regulation (EU) 2022/720: vertical block exemption for franchise agreements",
        "EU",
        date(2022, 6, 1),
    )
    none = (
        "No EU regulation or directive requires franchisors to give a pre-contractual disclosure document or to "
        "observe a waiting period before signing."
    )
    question = "Is there an EU-level law that tells franchisors what they must disclose and how long before signing?"
    r = ask_plain(tmp_path, [(block, [none])], question)
    assert verdict_words(r.answer.verdict) != {"*": "yes"}


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "Must we notify the regulator of the accident? Is there a fine for late notice?",
            ["Must we notify the regulator of the accident?", "Is there a fine for late notice?"],
        ),
        (
            "Under XY law, do we have to notify the authorities, through which channel and how quickly? If we "
            'recall it, what heading must the notice carry, and may we call the recall "precautionary"?',
            [
                "Under XY law, do we have to notify the authorities, through which channel and how quickly?",
                'may we call the recall "precautionary"?',
            ],
        ),
        ("After the 2025 rule, must an LLC report, and is there a fee?", ["After the 2025 rule, must an LLC report"]),
        ("Within how long, and with whom, must she report, and can she be fired?", ["can she be fired?"]),
        (
            "Has XY capped non-competes? Our firm has 12-month non-competes for traders - are they unlawful because "
            "of their length?",
            ["Has XY capped non-competes?", "are they unlawful because of their length?"],
        ),
        (
            "We run an app in XY. Yes or no for each: (1) does XY law presume that our riders are employees? (2) must "
            "we tell our works council how the app works? Since when, and who enforces it?",
            ["does XY law presume that our riders are employees?", "must we tell our works council how the app works?"],
        ),
    ],
)
def test_each_yes_no_part_stays_within_its_sentence(question: str, parts: list[str]) -> None:
    # "Must we notify ...? Is there a fine?" had been one part, its words those of both questions; an open
    # question before a yes/no ("what heading must the notice carry, and may we ...?") had been read as its lead; a
    # question set off by a dash from the facts before it had been no yes/no part at all; numbered questions
    # ("(1) does ...? (2) must ...?") had been one part, read as no yes/no
    assert yes_no_parts(question)[: len(parts)] == parts


def test_a_yes_or_no_for_each_numbered_question_is_one_verdict_per_question(tmp_path: Path) -> None:
    # "Yes or no for each: (1) ...? (2) ...?" from a business in a member state had been one verdict per
    # jurisdiction ("ES: No. ..." read from an exception, "EU: Open"), counted as no wrong verdict for want of a key
    act = plain_doc("xy-platform-work-act", "XY: platform work act", "XY", date(2021, 8, 12))
    text = (
        "The Platform Work Act presumes that delivery riders managed through a digital platform are employees. Every company "
        "with a works council must inform the works council of the rules on which its algorithms are based."
    )
    question = (
        "Yes or no for each: (1) does XY law presume that delivery riders are employees? (2) must a company tell "
        "its works council about the rules of its algorithms?"
    )
    r = ask_plain(tmp_path, [(act, [text])], question)
    said = verdict_words(r.answer.verdict)
    assert said.get("2") == "yes" and "no" not in said.values() and set(said) <= {"1", "2"}, r.answer.verdict


RECALL_ACT = plain_doc("xy-product-safety-act", "XY product safety act summary", "XY", date(2024, 12, 13))
ACCIDENT = (
    "Manufacturers must notify accidents caused by a product they have placed on the market that result in death "
    "or serious injury."
)
TO_CONSUMERS = (
    "Where a recall is needed, the economic operator must directly notify all affected consumers it can identify and "
    "otherwise publish a recall notice through its website and other channels."
)
RECALL_NOTICE = (
    'A written recall notice must carry the heading "Product safety recall" and must not include terms that may '
    'reduce consumers\' perception of the risk, such as "voluntary", "precautionary" or "discretionary".'
)


def test_two_yes_no_sentences_get_a_verdict_each_and_a_listed_prohibition_is_a_no(tmp_path: Path) -> None:
    # the first part had been answered "Yes." from the recall sentence (its words those of both questions), the
    # second "Yes." from the sentence forbidding the very word asked
    r = ask_plain(
        tmp_path,
        [(RECALL_ACT, [f"{TO_CONSUMERS} {ACCIDENT} {RECALL_NOTICE}"])],
        "Under XY law, do we have to notify the authorities of an accident with our kettle, through which channel and "
        "how quickly? If we recall the model, what heading must the notice carry, and may we call the recall "
        '"precautionary"?',
    )
    assert verdict_words(r.answer.verdict) == {"1": "yes", "2": "no"}
    assert r.answer.verdict is not None and ACCIDENT in r.answer.verdict.text


def test_an_instrument_said_not_to_apply_answers_whether_it_governs_no(tmp_path: Path) -> None:
    # "Does the EU regulation govern our sales in Great Britain?" had been answered "Yes." from the sentence on
    # the British regulations (as many of the part's words, and EU and Great Britain in its next sentence)
    gb = plain_doc(
        "gb-product-safety-regulations", "GB general product safety regulations summary", "GB", date(2005, 10, 1)
    )
    own = (
        "The General Product Safety Regulations 2005 set the general safety framework for consumer products supplied "
        "in Great Britain. They remain the law for Great Britain after the United Kingdom left the EU."
    )
    eu_rule = "The EU General Product Safety Regulation does not apply in Great Britain."
    notify = "A producer that knows a product poses a risk must forthwith notify an enforcement authority in writing."
    r = ask_plain(
        tmp_path,
        [(gb, [f"{own} {notify}", eu_rule])],
        "We found a dangerous defect in our baby bouncers. Do we have to notify a public authority in Britain? Does "
        "the new EU General Product Safety Regulation govern our sales in Great Britain?",
    )
    assert verdict_words(r.answer.verdict) == {"1": "yes", "2": "no"}
    assert r.answer.verdict is not None and eu_rule in r.answer.verdict.text


def test_a_verb_in_fy_is_stated_by_its_noun_in_a_verdicts_sentence(tmp_path: Path) -> None:
    # "Must we notify the authorities, and how?" had been answered "Yes." from the duty to notify consumers of a
    # recall: "notification" did not state "notify", so the sentence naming the authorities tied with it
    gateway = (
        "The notification goes without undue delay through the Safety Business Gateway to the competent authorities."
    )
    r = ask_plain(
        tmp_path,
        [(RECALL_ACT, [f"{TO_CONSUMERS} {gateway} {RECALL_NOTICE}"])],
        "We sell toasters in XY. One of them caught fire and injured a customer. Must we notify the authorities, and "
        "how? Can we describe our recall notice as voluntary?",
    )
    assert verdict_words(r.answer.verdict) == {"1": "yes", "2": "no"}
    assert r.answer.verdict is not None and gateway in r.answer.verdict.text


PROPOSAL = plain_doc(
    "xy-general-safety-proposal",
    "XY: proposed general safety provision for the consumer law (proposal, not law in force)",
    "XY",
    date(2023, 1, 1),
    status="proposed",
)


EPR = plain_doc(
    "xy-widget-epr",
    "XY: widget packaging producer responsibility – large and small producer thresholds, registration, fees",
    "XY",
    date(2025, 1, 1),
)


def test_a_title_naming_only_its_place_before_the_colon_is_named_by_its_description() -> None:
    assert "general safety provision" in own_name(PROPOSAL)
    assert "eight-hour day" not in own_name(ACT)
    # the matter listed after the description is no name: "small" and "registration" had been set aside as the
    # act's own words, and "Small producers must register ..." grounded no No to "exempt from registration?"
    assert own_name(EPR) == "XY widget packaging producer responsibility"
    # nor is a later part listing things, capitalised or not: "Karenzentschädigung" and "waiver" in "– HGB §§ 74 to
    # 75d, Karenzentschädigung, two-year limit, written form, waiver" were the act's own words, so "does it still
    # owe Karenzentschädigung?" was answered "No." from "an employee may not compete with the employer"
    covenant = plain_doc(
        "xy-widget-covenants",
        "XY: widget covenants (Widgetverbot) – WCA §§ 74 to 75d, Widgetentschädigung, two-year limit, waiver",
        "XY",
        date(2020, 1, 1),
    )
    assert own_name(covenant) == "XY widget covenants (Widgetverbot)"
    assert own_name(ACT) == "XY Working Time Act (Arbeitszeitgesetz)"


def test_a_duty_on_those_asked_of_answers_no_to_their_exemption(tmp_path: Path) -> None:
    text = (
        "Widget packaging producers must register with the regulator. Small producers must register and report "
        "their widget packaging data but do not pay waste management fees."
    )
    r = ask_plain(tmp_path, [(EPR, [text])], "Are small widget packaging producers in XY exempt from registration?")
    assert r.answer.verdict is not None and r.answer.verdict.text.startswith("No."), r.answer.verdict


def test_a_status_part_after_a_yes_no_on_the_facts_gets_its_verdict(tmp_path: Path) -> None:
    # "Is the proposed general safety provision already law?" after "Do we have to report this ...?" on facts had
    # no verdict and no mention: the first part, on the facts, left the whole yes/no to the analyst
    law = plain_doc("xy-consumer-law", "XY consumer law: product safety", "XY", date(2011, 1, 1))
    r = ask_plain(
        tmp_path,
        [
            (
                law,
                [
                    "A supplier who learns that its goods caused a serious injury must notify the minister within 2 days."
                ],
            ),
            (
                PROPOSAL,
                [
                    "Consumer advocates have argued that XY should adopt a general safety provision, a duty not to "
                    "supply unsafe products. The general safety provision is a proposal and is not law in force."
                ],
            ),
        ],
        "Our company sells bicycle helmets in XY. A child was seriously injured when a strap failed. Do we have to "
        "report this to the regulator, and within how many days? Is the proposed general safety provision already law?",
    )
    assert verdict_words(r.answer.verdict) == {"2": "no"}


def test_a_denial_at_another_level_of_law_does_not_answer_for_the_place_asked(tmp_path: Path) -> None:
    # "Is there a packaging EPR law in force in Oregon?" was answered "No." from "there is no federal packaging EPR
    # law in the United States" in Oregon's own act summary
    act = plain_doc("us-or-epr-act", "Oregon recycling modernization act summary", "US-OR", date(2021, 8, 6))
    passages = [
        "Oregon's recycling modernization act makes producers of packaging share responsibility for recycling. Oregon "
        "was one of the first states to adopt EPR for packaging; there is no federal packaging EPR law in the United "
        "States. Since 1 July 2025 a producer of packaging sold into Oregon must be a member of a producer "
        "responsibility organization."
    ]
    r = ask_plain(tmp_path, [(act, passages)], "Is there a packaging EPR law in force in Oregon?")
    assert verdict_words(r.answer.verdict) != {"*": "no"}
    r = ask_plain(tmp_path / "federal", [(act, passages)], "Is there a federal packaging EPR law in Oregon?")
    assert verdict_words(r.answer.verdict) != {"*": "yes"}  # asked of that level, the denial bears on it


def test_a_figure_given_as_an_example_and_a_claim_called_wrong_ground_no_yes(tmp_path: Path) -> None:
    # "Is it true that the FATF standards require beneficial owners to be identified at 25% ownership?" was
    # answered "Yes." from 'A footnote mentions "e.g. 25%" only as an example ...; sites claiming that ... 25% ...
    # are wrong'
    standard = plain_doc("int-widget-standard", "International widget ownership standard", "INT", date(2012, 2, 16))
    passages = [
        'The standard sets no mandatory widget ownership percentage. A footnote mentions "e.g. 25%" only as an '
        "example of a threshold. Secondary sites claiming that the standard defines widget owners as those holding "
        "25% or more are wrong."
    ]
    question = "Is it true that the international widget standard requires widget owners to be identified at 25%?"
    r = ask_plain(tmp_path, [(standard, passages)], question)
    assert verdict_words(r.answer.verdict) != {"*": "yes"}


def test_a_yes_must_state_one_of_the_rarest_words_asked() -> None:
    # "Does Britain require employers to pay apprentices the National Living Wage?" was answered "Yes." from "Under
    # the National Minimum Wage Act 1998 every employer ... must pay its workers at least the minimum hourly rate
    # for their age", which says nothing of apprentices (they have a rate of their own); a question's wording that
    # differs from the law's in one word ("an EU system" for "the Safety Gate portal") still grounds a Yes
    from types import SimpleNamespace

    from core.engines.offline.drafter import _misses_rarest

    pool = [
        SimpleNamespace(text=t)
        for t in (
            "Under the National Minimum Wage Act every employer must pay its workers at least the rate for their age.",
            "The National Living Wage is the rate for workers aged 21 and over; apprentices have a rate of their own.",
            "Employers must keep pay records for six years.",
            "Employers that underpay must pay the arrears and a national penalty; they must pay it within 14 days.",
            "Online marketplaces must register with the Safety Gate portal and act on orders within two days.",
        )
    ]
    asked = ["britain", "require", "employer", "pay", "apprentice", "national", "living", "wage"]
    assert _misses_rarest(pool[0].text, asked, pool)  # says nothing of apprentices or the living wage
    assert not _misses_rarest(pool[1].text, asked, pool)
    assert not _misses_rarest(pool[4].text, ["online", "marketplace", "register", "system", "safety"], pool)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "Is that still an accurate statement of the XY minimum? What does XY law now require, how much of the "
            "leave is non-transferable and must be paid, and by when did employers have to apply the new rules?",
            ["Is that still an accurate statement of the XY minimum?"],
        ),
        ("Is a director liable and may not be insured?", ["Is a director liable and may not be insured?"]),
        (
            "Is her dismissal unfair, is the compensation capped?",
            ["Is her dismissal unfair", "is the compensation capped?"],
        ),
    ],
)
def test_a_predicate_that_goes_on_opens_no_yes_no(question: str, parts: list[str]) -> None:
    # "... is non-transferable and must be paid, and by when ...?" had been a second yes/no ("must be paid ..."),
    # answered "Yes." inside an open question; an auxiliary opens one only before its subject
    assert yes_no_parts(question) == parts
