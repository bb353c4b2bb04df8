"""A duty or condition the sources deny: "does not oblige Member States to introduce ..." and "is not a legal
condition for selling ..." are a "No" to whether one must introduce it or needs it to sell, however many words stand
between the negation and what it denies; and a proposal's own sentence on what holds meanwhile ("There is currently
no legal requirement ...") goes beside its "No, only proposed". Plain documents built here; the rules are
illustrations."""

from datetime import date
from pathlib import Path

import pytest

from core.engines.offline.drafter import MANDATORY_ASKED, OPTIONAL_ASKED, _denied
from tests.loop.plain_corpora import ask_plain, plain_doc


@pytest.mark.parametrize(
    ("sentence", "wanted", "denied"),
    [
        (
            "It does not oblige Member States to introduce a statutory widget levy where collective agreements set "
            "it, as in Ruritania.",
            {"introduce", "statutory"},
            True,
        ),
        ("The XY mark is not a legal condition for selling widgets in XY.", {"mark", "sell", "xy"}, True),
        (
            "It does not require employers to publish a report; it requires them to introduce a policy.",
            {"introduce"},
            False,
        ),
        ("The XY mark is a condition for selling widgets in XY.", {"mark", "sell"}, False),
        ("A widget maker need not register, but it must not sell widgets without a label.", {"label"}, False),
    ],
)
def test_a_denied_duty_or_condition_denies_what_follows_it(sentence: str, wanted: set[str], denied: bool) -> None:
    assert _denied(sentence, wanted) is denied


def test_a_condition_the_source_denies_is_a_no(tmp_path: Path) -> None:
    # "Our distributor insists that we need the GS mark before we can sell there. Is that right?" was answered "Yes."
    # from "The GS mark is not a legal condition for selling products in Germany"
    act = plain_doc("xy-widget-safety-act", "XY: widget safety act", "XY", date(2021, 7, 16))
    text = (
        "The XY mark is a voluntary mark. A maker may apply to a recognised body for a type examination; if the "
        "widget passes, the body issues a certificate and the mark may be affixed. The XY mark is not a legal "
        "condition for selling widgets in XY. Misuse of the XY mark is prohibited."
    )
    r = ask_plain(
        tmp_path,
        [(act, [text])],
        "We sell widgets online in XY. Our distributor insists that we need the XY mark before we can sell there. "
        "Is that right?",
    )
    assert r.answer.verdict is not None and r.answer.verdict.text.startswith("No."), r.answer.verdict


@pytest.mark.parametrize(
    "in_force",
    [
        "There is currently no legal requirement for businesses in XY to issue or receive structured widget invoices.",
        "Until 1 January 2027, widget invoices continue to be governed by the general invoicing rules of XY.",
    ],
)
def test_a_proposal_states_what_holds_meanwhile(tmp_path: Path, in_force: str) -> None:
    # "Is B2B e-invoicing mandatory in the UK?" got "No, only proposed" with the proposal's later announcement,
    # not its own sentence that there is currently no legal requirement
    consultation = plain_doc(
        "xy-widget-invoice-consultation",
        "XY: consultation on structured widget invoices",
        "XY",
        date(2025, 2, 13),
        status="proposed",
    )
    text = (
        "The consultation asked whether structured widget invoices should be mandated. "
        f"{in_force} "
        "The government later announced that it intends to mandate structured widget invoices from April 2029."
    )
    r = ask_plain(tmp_path, [(consultation, [text])], "Are structured widget invoices mandatory in XY?")
    assert r.answer.verdict is not None and r.answer.verdict.text.startswith("No, only proposed"), r.answer.verdict
    assert in_force in r.answer.verdict.text


@pytest.mark.parametrize(
    ("question", "text"),
    [
        # "Is e-invoicing optional in Italy?" was answered "Yes." from "Italy was the first Member State to make
        # electronic invoicing compulsory between businesses"
        (
            "Is widget invoicing optional in XY?",
            "XY was the first country to make electronic widget invoicing compulsory between businesses.",
        ),
        ("Is widget labelling mandatory in XY?", "Widget labelling in XY is voluntary: makers may label widgets."),
        (
            "Is the widget notice optional in XY?",
            "By 14 February 2024, makers had to send the widget notice to buyers.",
        ),
        (  # the duty in the sentence before the one that decides: "Is time recording optional in Germany?"
            "Is widget recording optional in XY?",
            "The Act itself requires the maker to record widgets it sells. A government draft setting detailed rules "
            "for electronic widget recording was published in 2023; whether it has been adopted is not verified here.",
        ),
        # "Does the United States require B2B e-invoicing at federal level?" was answered "Yes." from "there is no
        # federal law that requires businesses to issue or receive electronic invoices": the level asked is denied
        (
            "Does XY require B2B widget invoicing at federal level?",
            "XY has no federal widget tax, and there is no federal law that requires businesses to issue widget "
            "invoices.",
        ),
    ],
)
def test_the_contrary_of_what_is_asked_is_a_no(tmp_path: Path, question: str, text: str) -> None:
    act = plain_doc("xy-business-documents", "XY: federal rules on business documents", "XY", date(2019, 1, 1))
    r = ask_plain(tmp_path, [(act, [text])], question)
    assert r.answer.verdict is not None and r.answer.verdict.text.startswith("No."), r.answer.verdict


def test_optional_or_mandatory_is_asked_only_of_what_it_is_said_of() -> None:
    assert OPTIONAL_ASKED.search("Is widget invoicing optional in XY?")
    assert MANDATORY_ASKED.search("Is B2B widget invoicing mandatory?")
    assert not OPTIONAL_ASKED.search("Do voluntary widget registrants have to use the portal?")
    assert not MANDATORY_ASKED.search("Is there a mandatory cooling-off period for widgets?")


def test_a_duty_that_may_be_met_another_way_makes_neither_way_mandatory(tmp_path: Path) -> None:
    # "Is garden leave optional in Massachusetts?" was answered "No." from "The agreement must be supported by a
    # garden leave clause or other mutually-agreed upon consideration"
    act = plain_doc("xy-business-documents", "XY: federal rules on business documents", "XY", date(2019, 1, 1))
    text = "A widget clause must be supported by a widget leave clause or other agreed consideration."
    r = ask_plain(tmp_path, [(act, [text])], "Is widget leave optional in XY?")
    assert r.answer.verdict is None


def test_a_yes_no_asking_whether_something_holds_without_a_thing_is_left_open(tmp_path: Path) -> None:
    # "Are Mexican invoices valid without a PAC stamp?" was answered "Yes." from "Before it becomes valid, the CFDI
    # must be sent to an authorised certification provider (PAC)"
    act = plain_doc("xy-widget-invoices", "XY: widget invoice rules", "XY", date(2022, 1, 1))
    text = "Before it becomes valid, a widget invoice must be sent to an authorised provider, which adds its stamp."
    r = ask_plain(tmp_path, [(act, [text])], "Are widget invoices valid in XY without a provider stamp?")
    assert r.answer.verdict is None, r.answer.verdict


def test_a_pending_act_gives_no_status_to_an_act_held_under_a_place_not_consulted(tmp_path: Path) -> None:
    # "Is TicketBAI required in Bilbao?" (Bilbao read as Spain, the Basque document not consulted) was answered "No,
    # not yet: ... Verifactu ... applies only from 1 January 2027" from the Verifactu rules' sentence that Basque
    # taxpayers follow TicketBAI instead
    act = plain_doc(
        "xy-widgetcheck-software",
        "XY: Widgetcheck rules for invoicing software – exclusions for the northern provinces",
        "XY",
        date(2027, 1, 1),
        status="not_yet_applicable",
    )
    text = (
        "The regulation requires certified invoicing software. It does not apply to taxpayers that keep their books "
        "through the central system. It also does not apply to taxpayers whose taxes are managed by the northern "
        "provinces under their own systems; those taxpayers follow the provincial rules, such as WidgetBAI."
    )
    provincial = plain_doc(
        "zz-widgetbai",
        "ZZ: WidgetBAI – certified invoicing software for the northern provinces",
        "ZZ",
        date(2022, 1, 1),
    )
    r = ask_plain(
        tmp_path,
        [(act, [text]), (provincial, ["Every business must issue its invoices with WidgetBAI software."])],
        "Is WidgetBAI required in XY?",
    )
    assert r.answer.verdict is None, r.answer.verdict
