"""A yes/no asking whether something may still be done is a No where the law bans it ("Can we still call our
product climate neutral based on offsetting?" was "Yes." from "... bans offset-based product claims of climate
neutrality"); and a yes/no naming an act is answered from that act, not from another act sharing some of its name's
words ("Has the EU adopted the Green Claims Directive?" was "Yes." from the adoption of the Green Transition
Directive; "Are micro-enterprises exempt from the Green Claims Directive?" was "No." from a regulator's code); and
what denies an asked word is told from what only seems to ("does not at present contain" denies, "an unlicensed coin
is prohibited" and "Only coins issued by licensed issuers may be offered" require the licence). Plain documents
built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

import pytest

from core.engines.offline import drafter
from core.engines.offline.ranking import candidates, starts_whole
from core.engines.text import term_set
from tests.loop.plain_corpora import ask_plain, plain_doc, plan_plain

WANTED = {"product", "widget", "neutral", "offset"}


@pytest.mark.parametrize(
    ("sentence", "banned"),
    [
        ("The act bans offset-based product claims of widget neutrality and generic claims without proof.", True),
        ("The act prohibits product claims of widget neutrality that are based on offsets.", True),
        ("The act bans product claims of widget neutrality that are based on emission trading.", None),
        ("The act bans product claims of widget neutrality unless a report is published.", None),
        ("Offset-based product claims of widget neutrality are banned.", True),
        ("Offset-based product claims of widget neutrality are banned unless a report is published.", None),
        ("The act bans generic environmental claims without recognised performance.", False),
        ("Product claims of widget neutrality must be substantiated.", False),
    ],
)
def test_what_a_ban_names_decides_whether_it_bans_what_is_asked(sentence: str, banned: bool | None) -> None:
    assert drafter._bans(sentence, WANTED) is banned


def test_a_permission_asked_of_what_the_law_bans_is_a_no(tmp_path: Path) -> None:
    act = plain_doc("xy-widget-claims-act", "XY: widget claims act", "XY", date(2024, 1, 1))
    text = (
        "The widget claims act applies to traders selling to consumers in XY. From 1 March 2026 the act must be "
        "applied by every trader and bans offset-based product claims of widget neutrality and generic claims "
        "without recognised performance."
    )
    r = ask_plain(tmp_path, [(act, [text])], "Can we still call our product widget neutral in XY based on offsetting?")
    verdict = r.answer.verdict
    assert verdict is not None and verdict.text.startswith("No."), verdict


def _acts() -> list:
    transition = plain_doc(
        "xy-green-transition-widget-directive",
        "XY: Directive on empowering widget buyers for the green transition",
        "XY",
        date(2024, 3, 26),
    )
    proposal = plain_doc(
        "xy-green-widget-claims-proposal",
        "XY: proposed Green Widget Claims Directive on substantiation of explicit widget claims",
        "XY",
        date(2023, 3, 22),
        status="proposed",
    )
    code = plain_doc("xy-widget-claims-code", "XY: regulator's Green Widget Claims Code", "XY", date(2021, 9, 20))
    return [
        (
            transition,
            [
                "The Green Transition Widget Directive was adopted on 28 February 2024 and entered into force on 26 "
                "March 2024. It bans generic widget claims without recognised performance."
            ],
        ),
        (
            proposal,
            [
                "On 22 March 2023 the Commission published its proposal for a Green Widget Claims Directive. "
                "Micro-enterprises would be exempt from the substantiation obligations unless they ask for "
                "verification. Until a Green Widget Claims Directive is adopted and applies, there is no XY-wide "
                "requirement to have widget claims verified by a third party."
            ],
        ),
        (
            code,
            [
                "The regulator's code sets out how traders should comply with widget claims law, and micro-enterprises "
                "get no exemption from it. Under the new regime a trader that makes a misleading widget claim can be "
                "fined directly."
            ],
        ),
    ]


def test_an_act_named_in_a_change_question_is_the_one_whose_change_is_read(tmp_path: Path) -> None:
    r = ask_plain(tmp_path, _acts(), "Has XY adopted the Green Widget Claims Directive?")
    verdict = r.answer.verdict
    assert verdict is not None and verdict.text.startswith("No, only proposed"), verdict
    assert "xy-green-widget-claims-proposal" in verdict.doc_ids


def test_an_act_named_in_a_yes_no_is_not_answered_by_another_act(tmp_path: Path) -> None:
    r = ask_plain(tmp_path, _acts(), "Are micro-enterprises exempt from the Green Widget Claims Directive?")
    verdict = r.answer.verdict
    assert verdict is None or "xy-widget-claims-code" not in verdict.doc_ids, verdict
    assert verdict is None or verdict.text.startswith("No, only proposed"), verdict


@pytest.mark.parametrize(
    ("sentence", "wanted", "denied"),
    [
        # "Does XY have a general safety provision?" was "Yes." from this: "not" stood five words before the asked
        # words, one beyond the window, for the filler "at present"
        ("The act does not at present contain a general safety provision.", {"general", "safety", "provision"}, True),
        # but the article and prepositions count: "must not sell widgets without a label" denies no label asked
        ("A maker must not sell widgets without a label.", {"label"}, False),
        # "Must a stablecoin issuer be licensed?" was "No." from these: what is forbidden for lacking a licence,
        # and what alone may be offered, require the licence
        ("Advertising an unlicensed widget coin is prohibited.", {"licensed", "widget"}, False),
        ("Only widget coins issued by licensed issuers may be offered.", {"licensed", "widget"}, False),
        # an addition, no negation: "(2) must we tell our works council ...?" had turned "No." with the window
        ("Every company with a works council, and not only platforms, must inform the works council.", {"work"}, False),
        ("The act applies only to delivery riders.", {"delivery", "rider"}, True),
    ],
)
def test_what_denies_an_asked_word_and_what_only_seems_to(sentence: str, wanted: set[str], denied: bool) -> None:
    assert drafter._denied(sentence, {w for t in wanted for w in term_set(t)}) is denied


def test_a_sentence_referring_back_to_a_list_is_not_quoted_from_its_last_item(tmp_path: Path) -> None:
    # "If any of these conditions is not met, the general law, including the ABC test, applies." was quoted with
    # the list's last item as its antecedent, the claim opening "does not restrict the driver ..." (a cut sentence)
    act = plain_doc("xy-app-drivers-act", "XY: app-based drivers act", "XY", date(2020, 12, 16))
    text = (
        "The drivers act took effect on 16 December 2020. An app-based driver is an independent contractor, and "
        "not an employee, if the company:\n\n"
        "- does not require the driver to accept any specific request;\n"
        "- does not restrict the driver from working for other network companies; and\n"
        "- does not restrict the driver from working in any other lawful occupation or business.\n\n"
        "If any of these conditions is not met, the general law, including the ABC test, applies."
    )
    plan, ctx = plan_plain(
        tmp_path, [(act, [text])], "Which test applies to app-based drivers in XY under the general law?"
    )
    found = [c.text for i in plan.items for c in candidates(i, [(act.id, f"{act.id}#0", text, 1.0)], plan, ctx)]
    assert all(starts_whole(t) for t in found), found


def _repair_directive(jurisdiction: str) -> list:
    directive = plain_doc(
        "eu-widget-repair-directive", "Directive 2024/99 on the repair of widgets", jurisdiction, date(2024, 7, 30)
    )
    text = (
        "Directive 2024/99, often called the Widget Repair Directive, promotes the repair of widgets bought by "
        "consumers. It was published in the Official Journal on 10 July 2024 and entered into force on 30 July 2024."
    )
    return [(directive, [text])]


def test_an_act_in_force_named_as_adopted_is_yes_where_it_is_the_places_own(tmp_path: Path) -> None:
    # "Has the EU adopted the Right to Repair Directive?" got no verdict: no sentence says "adopted" of it, though
    # it is in force and says when it was published and entered into force
    r = ask_plain(tmp_path / "a", _repair_directive("EU"), "Has the EU adopted the Widget Repair Directive?")
    verdict = r.answer.verdict
    assert verdict is not None and verdict.text.startswith("Yes. Directive 2024/99"), verdict
    assert "entered into force on 30 July 2024" in verdict.text
    # a member state "adopting" the union's directive is transposing it: the directive does not say so
    other = ask_plain(tmp_path / "b", _repair_directive("EU"), "Has Germany adopted the Widget Repair Directive?")
    assert other.answer.verdict is None, other.answer.verdict
