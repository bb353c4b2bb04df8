"""Verdicts on what is not law yet and on whether something is mandatory, read from the sentences, not from a
document's name: "Is Peppol mandatory in XY?" is not a "Yes" because the act's title says "mandatory ... via Peppol";
"Is Widgetcheck in force?" of an act not yet applicable is "No, not yet", from that act, not from a proposal that
mentions it; "Has XY introduced penalties for widget invoices yet?" is "No, not yet" when its act says they apply
only from a later date, and no verdict when the thing asked has started already. A verdict stating when an act
applies answers the item asking when. Plain documents built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

from core.engines.offline.verdicts import _lone_name, _starts
from tests.loop.plain_corpora import RECALL_AS_OF, ask_plain, plain_doc

INVOICE_ACT = plain_doc(
    "xy-widget-invoicing-act",
    "XY: mandatory structured widget invoicing via Peppol from 1 January 2026, penalties of EUR 1,500",
    "XY",
    date(2026, 1, 1),
)
INVOICE_TEXT = (
    "Since 1 January 2026 traders established in XY must issue structured electronic invoices for widget sales to "
    "other traders. The default standard is Peppol BIS Billing 3.0, and invoices are exchanged through the Peppol "
    "network via certified access points. Traders may agree to use another network, as long as it complies with "
    "EN 16931. A first breach is fined EUR 1,500."
)


def test_mandatory_is_read_from_the_sentence_not_the_acts_name(tmp_path: Path) -> None:
    # "Is Peppol mandatory in Belgium?" was "Yes." from "The default standard is Peppol BIS Billing 3.0": every asked
    # word was in the act's title, so any sentence grounded it
    r = ask_plain(tmp_path, [(INVOICE_ACT, [INVOICE_TEXT])], "Is Peppol mandatory in XY?")
    assert r.answer.verdict is None, r.answer.verdict


def test_a_sentence_that_makes_the_subject_mandatory_still_grounds_a_yes(tmp_path: Path) -> None:
    r = ask_plain(tmp_path, [(INVOICE_ACT, [INVOICE_TEXT])], "Is structured invoicing mandatory in XY?")
    assert r.answer.verdict is not None and r.answer.verdict.text.startswith("Yes."), r.answer.verdict
    assert "must issue structured electronic invoices" in r.answer.verdict.text


def test_an_act_not_yet_applicable_asked_by_its_one_word_name_is_not_yet_law(tmp_path: Path) -> None:
    # "Is Verifactu in force in Spain today?" quoted a proposal that mentions Verifactu as "No, only proposed"
    software = plain_doc(
        "xy-widgetcheck-software",
        "XY: requirements for widget till software (Widgetcheck) - postponed start dates, EUR 50,000 penalty",
        "XY",
        date(2027, 1, 1),
        status="not_yet_applicable",
    )
    software_text = (
        "Every widget till must chain its records with a hash. Users may choose the Widgetcheck mode, in which every "
        "record is sent to the tax office. A further postponement, to 1 January 2027, was approved in December "
        "2025. A user of non-compliant software faces a fine of EUR 50,000 for each year."
    )
    draft = plain_doc(
        "xy-widget-einvoicing-draft",
        "XY: draft decree on B2B widget e-invoicing",
        "XY",
        date(2022, 9, 29),
        status="proposed",
    )
    draft_text = (
        "The draft decree would require traders to exchange widget invoices electronically. The obligation is "
        "separate from the Widgetcheck requirements for till software."
    )
    r = ask_plain(
        tmp_path, [(software, [software_text]), (draft, [draft_text])], "Is Widgetcheck in force in XY today?"
    )
    verdict = r.answer.verdict
    assert verdict is not None and verdict.text.startswith("No, not yet"), verdict
    assert verdict.doc_ids[0] == "xy-widgetcheck-software" and "postponement" in verdict.text
    # the lead names the act by its title, figures and all: that is no misquoted threshold
    found = r.identified_deficiencies
    assert not any("50,000" in d.description for d in found), [d.description for d in found]
    # the verdict states when it applies: the item asking when is answered, not disclosed as missing
    assert "XY:date" in [i.id for i in r.plan.items]
    assert "XY:date" in verdict.plan_item_ids and not [g for g in r.answer.gaps if g.plan_item_id == "XY:date"]


def test_one_capitalised_word_is_a_name_a_common_noun_is_not() -> None:
    assert _lone_name("Widgetcheck", {"widgetcheck"})
    assert not _lone_name("the directive", {"directive"})
    assert not _lone_name("XY's law", {"law"})


def test_a_start_after_the_as_of_date_is_not_yet() -> None:
    later = "Financial penalties for late widget invoices have been deferred and apply only from 1 January 2027."
    assert _starts(RECALL_AS_OF, later, later=True)
    assert not _starts(RECALL_AS_OF, later, later=False)
    began = "From 1 February 2026, large traders must issue widget invoices in the WIS."
    assert _starts(RECALL_AS_OF, began, later=False) and not _starts(RECALL_AS_OF, began, later=True)
    assert not _starts(RECALL_AS_OF, "The act was adopted on 1 January 2027.", later=True)


KSEF = plain_doc("xy-wis-act", "XY: mandatory widget invoices in the WIS", "XY", date(2026, 2, 1))
KSEF_TEXT = (
    "From 1 February 2026, large traders must issue widget invoices in the WIS. From 1 April 2026, all other "
    "traders must issue widget invoices in the WIS. Financial penalties for failing to issue an invoice in the WIS "
    "have been deferred and apply only from 1 January 2027."
)


def test_a_change_introduced_with_a_later_start_is_not_yet(tmp_path: Path) -> None:
    # "Has Poland introduced penalties for KSeF yet?" got no verdict and scored 0.00
    r = ask_plain(tmp_path, [(KSEF, [KSEF_TEXT])], "Has XY introduced penalties for the WIS yet?")
    verdict = r.answer.verdict
    assert verdict is not None and verdict.text.startswith("No, not yet."), verdict
    assert "1 January 2027" in verdict.text


def test_what_has_started_already_is_never_not_yet(tmp_path: Path) -> None:
    # the penalties sentence names the WIS too, but the WIS itself started on 1 February 2026
    r = ask_plain(tmp_path, [(KSEF, [KSEF_TEXT])], "Has XY introduced the WIS?")
    verdict = r.answer.verdict
    assert verdict is None or not verdict.text.startswith("No"), verdict


def test_already_bound_asked_after_facts_is_asked_of_the_law(tmp_path: Path) -> None:
    # "We make speakers ...; the battery is glued in. Are we already required under EU law to make the battery
    # removable?" gave no verdict: the facts set out left it open, though "already" asks whether the duty applies
    # yet, which the act's later start answers (a rule bounding whom it binds by a size the facts do not give had
    # left every yes/no open)
    act = plain_doc(
        "xy-widget-cell-rules",
        "XY: removable widget cells in appliances",
        "XY",
        date(2027, 2, 18),
        status="not_yet_applicable",
    )
    text = (
        "From 18 February 2027, anyone placing appliances with portable widget cells on the market must ensure that "
        "the cells are removable and replaceable by the end user. Removal must need no specialised tools. Makers "
        "of fewer than 500 appliances a year must also make the widget cells replaceable by the user."
    )
    question = (
        "We make widget speakers sold in XY; the speaker's widget cell is glued in. Are we already required under XY law to make "
        "the widget cell removable and replaceable by the user?"
    )
    verdict = ask_plain(tmp_path, [(act, [text])], question).answer.verdict
    assert verdict is not None and verdict.text.startswith("No, not yet"), verdict
    assert "18 February 2027" in verdict.text


def test_already_bound_asked_of_a_measured_asker_stays_open(tmp_path: Path) -> None:
    # a duty phased in by size turns on the headcount the facts give: that is the analyst's to hold against it
    act = plain_doc("xy-widget-diligence", "XY: widget due diligence act", "XY", date(2024, 7, 25))
    text = (
        "Companies with more than 5,000 employees must carry out widget due diligence from 26 July 2027, and "
        "companies with more than 3,000 employees from 26 July 2028."
    )
    question = "Our group in XY has 6,000 employees. Do we already have to carry out widget due diligence?"
    r = ask_plain(tmp_path, [(act, [text])], question)
    assert r.plan.verdict_on_facts and r.answer.verdict is None, r.answer.verdict


def test_a_not_yet_verdict_names_the_act_without_its_titles_description(tmp_path: Path) -> None:
    # "No, not yet: European Union: Batteries Regulation (EU) 2023/1542, Article 11 – portable batteries in
    # appliances must be removable ..., from 18 February 2027 applies only from 18 February 2027."
    act = plain_doc(
        "xy-widget-cell-article",
        "XY: Widget Cells Regulation 2023/15, Article 11 – widget cells must be removable by the end user, from 18 "
        "February 2027",
        "XY",
        date(2027, 2, 18),
        status="not_yet_applicable",
    )
    text = "From 18 February 2027, appliances with widget cells must have cells that the end user can remove."
    verdict = ask_plain(tmp_path, [(act, [text])], "Is the XY Widget Cells Regulation in force today?").answer.verdict
    assert verdict is not None, verdict
    assert verdict.text.startswith(
        "No, not yet: XY: Widget Cells Regulation 2023/15, Article 11 applies only from 18 February 2027."
    ), verdict.text
