"""A yes/no on an event the question dates, a negation in another clause, the question's own "non-" word and a
rule only announced: none of them is read as a "No" or a "Yes" the sources do not give. Plain documents built here;
the rules are illustrations."""

from datetime import date
from pathlib import Path

import pytest

from core.engines.offline.drafter import _denied
from core.engines.text import dates_own_past_event, own_event_date
from tests.loop.plain_corpora import RECALL_AS_OF, ask_plain, plain_doc

BAN = plain_doc("xy-widget-clause-ban", "XY: ban on widget clauses", "XY", date(2023, 7, 1))
NOT_RETROACTIVE = (
    "XY makes widget clauses void and unenforceable in employment. The ban applies to agreements entered into on or "
    "after 1 July 2023. It is not retroactive: a widget clause signed before that date continues to be judged under "
    "the earlier reasonableness test."
)
WANTED = {"widget", "clause", "sign", "enforceable", "non", "compete"}


def test_a_yes_no_on_an_event_dated_before_today_is_left_to_the_analyst(tmp_path: Path) -> None:
    # "is a non-compete signed in March 2022 still enforceable?" was answered "No." from "It is not retroactive: a
    # non-compete signed before that date continues to be judged under the earlier test": the "not" of another
    # clause, and "non-" of the question's own word, read as denials; whether the ban reaches the clause turns on
    # its date against the ban's, which the rule engine does not compare (a clause signed in 2024 falls under it)
    for year in (2022, 2024):
        r = ask_plain(
            tmp_path / str(year),
            [(BAN, [NOT_RETROACTIVE])],
            f"In XY, is a widget clause signed by an employee in March {year} still enforceable?",
        )
        assert r.plan.verdict_on_facts and r.answer.verdict is None
        assert "on or after 1 July 2023" in r.answer.body_text()


def test_an_event_dated_from_today_on_falls_under_the_rules_as_they_stand() -> None:
    question = "Does the XY cap still apply to a consumer loan signed in December 2026?"
    assert own_event_date(question) == date(2026, 12, 31)
    assert not dates_own_past_event(question, RECALL_AS_OF)
    assert dates_own_past_event("Is a contract made in 2019 still valid?", RECALL_AS_OF)
    assert own_event_date("Is the XY ban still in force?") is None


@pytest.mark.parametrize(
    ("sentence", "denied"),
    [
        (NOT_RETROACTIVE.split(". ")[-1], False),
        ("A widget clause signed by an employee is not enforceable.", True),
        ("A widget clause signed by an employee is unenforceable.", True),
        ("A non-compete signed by an employee is void.", False),
    ],
)
def test_a_negation_denies_only_within_its_clause_and_not_the_questions_own_word(sentence: str, denied: bool) -> None:
    assert _denied(sentence, WANTED) is denied


def test_a_rule_only_announced_is_no(tmp_path: Path) -> None:
    cap = plain_doc("xy-widget-cap-announcement", "XY: widget clause rules", "XY", date(2015, 1, 1))
    text = (
        "Widget clauses are enforceable if reasonable. In May 2023 the government announced that it intended to "
        "legislate to limit the length of widget clauses to three months. No legislation has been introduced."
    )
    r = ask_plain(tmp_path, [(cap, [text])], "Has XY capped widget clauses at three months?")
    assert r.answer.verdict is not None and r.answer.verdict.text.startswith("No.")
