"""A rule a court set aside before it took effect: whether it is in force is answered No from the sentence that
states its end, and whether a statute exists at all is asked of the law, not of the facts the question sets out.
Plain documents built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

import pytest

from core.domain.answer import render_markdown
from core.domain.plan import Aspect
from core.engines.offline.verdicts import asks_of_law
from core.engines.text import is_anaphoric
from tests.loop.plain_corpora import ask_plain, plain_doc

RULE = plain_doc(
    "xy-widget-clause-rule",
    "XY: Widget Clause Rule – adopted 2024, set aside by a court, never took effect",
    "XY",
    date(2024, 9, 4),
    status="repealed",
)
BACKGROUND = (
    "There is no general national statute in XY that governs widget clauses between employers and their workers. "
    "Whether a widget clause is enforceable is decided under provincial law."
)
OUTCOME = (
    "On August 20, 2024, in Acme v. Commission, the district court set aside the widget clause rule. "
    "Whether the widget clause rule text has since been formally removed from the register is not verified here."
)
CLAIMS = "Claims that a national ban on widget clauses is in force are wrong."


def test_a_rule_set_aside_is_not_in_force_by_the_sentence_stating_its_end(tmp_path: Path) -> None:
    # "Is the FTC ban in force today?" had been answered "No." quoting "Whether the rule text has since been removed
    # ... is not verified here": a sentence that leaves its end open; "set aside" was no wording of an end
    r = ask_plain(tmp_path, [(RULE, [OUTCOME])], "Is the XY widget clause rule in force today?")
    assert r.answer.verdict is not None
    assert r.answer.verdict.text.startswith("No.")
    assert "set aside the widget clause rule" in r.answer.verdict.text and "not verified" not in r.answer.verdict.text
    # the yes or no is about today: not headed "History:" as a claim of what the law was, its ground marked instead
    shown = render_markdown(r.answer)
    assert shown.startswith("Short answer: No.") and "(quoting a source no longer in force)" in shown


def test_whether_a_statute_exists_is_asked_of_the_law_after_facts(tmp_path: Path) -> None:
    # facts set out first had made every later yes/no one "on the facts", so neither was answered; and "There is no
    # general ... statute" was read as pointing back to an earlier sentence and never quoted
    r = ask_plain(
        tmp_path,
        [(RULE, [BACKGROUND, OUTCOME, CLAIMS])],
        "Our HR director says XY banned widget clauses and that we must tell our workers their widget clauses will "
        "not be enforced. Is the XY widget clause ban in force today? Is there a national statute on widget clauses?",
    )
    assert not r.plan.verdict_on_facts
    assert r.answer.verdict is not None
    text = r.answer.verdict.text
    assert text.startswith("(1) No.") and "(2) No. There is no general national statute" in text
    # "will not be enforced" says what the clauses are worth, and asks no penalty
    assert Aspect.penalty not in {i.aspect for i in r.plan.items}


@pytest.mark.parametrize(
    ("asked", "of_law"),
    [
        ("Is there a national statute on widget clauses?", True),
        ("Is the ban still in force?", True),
        ("Is there a duty for us to register?", False),
        ("Must we register?", False),
    ],
)
def test_a_yes_no_after_facts_asked_of_the_law(asked: str, of_law: bool) -> None:
    assert asks_of_law(asked) is of_law


@pytest.mark.parametrize(
    ("sentence", "anaphoric"),
    [
        ("There is no general federal statute on it.", False),
        ("There are exceptions for sellers.", False),
        ("There is no such duty.", True),
        ("Therefore the rule applies.", True),
        ("There, the rule applies.", True),
        ("In addition to any other remedy, a court may award reasonable attorney fees.", False),
        ("In addition, a court may award reasonable attorney fees.", True),
        ("In addition to the above, a court may award reasonable attorney fees.", True),
    ],
)
def test_there_before_a_verb_or_in_addition_to_what_it_names_points_nowhere(sentence: str, anaphoric: bool) -> None:
    assert is_anaphoric(sentence) is anaphoric


def test_an_ended_rule_of_a_wider_place_grounds_no_verdict_on_a_state_question(tmp_path: Path) -> None:
    # "Is the first point still correct?" of a Washington template had been answered "No." from the set-aside
    # federal rule: an instrument of the country, which the question on the state's law never asked of
    federal = plain_doc(
        "us-widget-clause-rule",
        "United States: Widget Clause Rule, set aside",
        "US",
        date(2024, 9, 4),
        status="repealed",
    )
    state = plain_doc("us-wa-widget-act", "Washington widget clause act as amended in 2024", "US-WA", date(2024, 6, 6))
    r = ask_plain(
        tmp_path,
        [
            (federal, [OUTCOME.replace("XY", "US"), "The widget clause rule would have covered widget templates."]),
            (state, ["Widget templates prepared under the former 2020 version of the act should be revised."]),
        ],
        "Our Washington State widget clause template was drafted under the former 2020 act. Is the first point still "
        "correct?",
    )
    assert r.answer.verdict is None or "set aside" not in r.answer.verdict.text
