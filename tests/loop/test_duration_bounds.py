"""The longest a restriction may last is a time limit, not a threshold: the sentence bounding the period answers it,
and a table cell read from a sentence stating only a plan says so. Plain documents built here; the rules are
illustrations."""

from datetime import date
from pathlib import Path

import pytest

from core.domain.answer import Claim, Quote, comparison_rows
from core.domain.figures import period_sides
from core.domain.plan import Aspect
from tests.loop.plain_corpora import ask_plain, plain_doc

AA = plain_doc("us-ma-widget-act", "Massachusetts widget clause act", "US-MA", date(2018, 10, 1))
DE = plain_doc("de-widget-code", "Germany widget clause code", "DE", date(1990, 1, 1))
AA_TEXT = (
    "A widget clause with an employee who is given seven business days to rescind acceptance is outside the act. "
    "The restricted period of a widget clause may not exceed 12 months from the date employment ends."
)
DE_TEXT = "A widget clause restriction may not extend beyond two years from the end of the employment relationship."


@pytest.mark.parametrize(
    ("text", "sides"),
    [
        ("The restricted period may not exceed 12 months.", {(12.0, "month", "below")}),
        ("The restriction may not extend beyond two years.", {(2.0, "year", "below")}),
        ("The employee is given seven business days to rescind.", set()),
    ],
)
def test_a_period_the_rule_may_not_exceed_is_bounded_below(text: str, sides: set[tuple[float, str, str]]) -> None:
    # "may not exceed 12 months" had been no bound, "may not extend beyond two years" a lower one
    assert period_sides(text) == sides


def test_the_maximum_length_of_a_restriction_is_a_time_limit_answered_by_its_bound(tmp_path: Path) -> None:
    # "Compare the maximum length of a non-compete" had been planned as a threshold: the table showed the garden
    # leave pay ("50 percent or more") and, once a time limit, the days to rescind instead of the 12-month bound
    r = ask_plain(
        tmp_path,
        [(AA, [AA_TEXT]), (DE, [DE_TEXT])],
        "Compare the maximum length of a post-employment widget clause in Massachusetts and Germany.",
    )
    aspects = {i.aspect for i in r.plan.items}
    assert Aspect.deadline in aspects and Aspect.threshold not in aspects
    rows = {row[0]: row[1:] for row in comparison_rows(r.answer, r.plan)}
    assert rows["US-MA"][0].startswith("12 months") and rows["DE"][0].startswith("two years")


def test_a_cell_read_from_a_plan_says_it_is_only_proposed(tmp_path: Path) -> None:
    r = ask_plain(
        tmp_path,
        [(AA, [AA_TEXT]), (DE, [DE_TEXT])],
        "Compare the maximum length of a post-employment widget clause in Massachusetts and Germany.",
    )
    planned = Claim(
        text="In May 2023 the government announced that it intended to legislate to limit widget clauses to three "
        "months.",
        plan_item_ids=("DE:deadline",),
        citations=(Quote(doc_id="de-widget-code", chunk_id="de-widget-code#0", quote="x"),),
    )
    answer = r.answer.with_claims("DE", [planned])
    rows = {row[0]: row[1:] for row in comparison_rows(answer, r.plan)}
    assert rows["DE"][0].startswith("three months, only proposed")


EU = plain_doc("eu-widget-directive", "EU widget clause directive", "EU", date(2019, 6, 20))
EU_TEXT = "A widget clause restriction under EU law may not exceed six months from the end of employment."


def test_the_table_compares_the_places_named_and_a_union_only_where_it_stands_in_for_one(tmp_path: Path) -> None:
    # a table of "Massachusetts and Germany" had an EU row beside Germany's own law: the union's act on another
    # subject showed "within six months" as a time limit of the comparison
    named = ask_plain(
        tmp_path / "named",
        [(AA, [AA_TEXT]), (DE, [DE_TEXT]), (EU, [EU_TEXT])],
        "Compare the maximum length of a post-employment widget clause in Massachusetts and Germany.",
    )
    assert named.answer.section("EU") is not None
    assert [row[0] for row in comparison_rows(named.answer, named.plan)[1:]] == ["US-MA", "DE"]
    # Spain has no law of its own in the corpus: the union's stands in for it
    stand_in = ask_plain(
        tmp_path / "stand-in",
        [(DE, [DE_TEXT]), (EU, [EU_TEXT])],
        "Compare the maximum length of a post-employment widget clause in Spain and Germany.",
    )
    assert sorted(row[0] for row in comparison_rows(stand_in.answer, stand_in.plan)[1:]) == ["DE", "EU"]
