"""One table of wordings, read alike by the critic (core.domain.figures) and the scorer (core.evaluation.facts),
which is built on it: the two can no longer disagree on what a figure or a date says."""

from __future__ import annotations

import math
from datetime import date

import pytest

from core.domain.figures import (
    age_bounds,
    count_bounds,
    counts,
    dates,
    figures,
    multiples,
    period_lengths,
    periods,
    stated_ages,
    stated_counts,
)
from core.evaluation.facts import fact_found, normalise

AMOUNTS = [
    # wording, country hint, (unit, value, comparator), the scorer's tokens
    ("10 000 EUR", (), ("EUR", 10000.0, None), "eur 10000"),
    ("EUR 10k", (), ("EUR", 10000.0, None), "eur 10000"),
    ("€10,000 or more", (), ("EUR", 10000.0, ">="), "ge eur 10000"),
    ("USD 1 million", (), ("USD", 1000000.0, None), "usd 1000000"),
    ("3,000 US dollars", (), ("USD", 3000.0, None), "usd 3000"),
    ("C$10,000", ("CA",), ("CAD", 10000.0, None), "cad 10000"),
    ("10,000 dollars", ("CA",), ("CAD", 10000.0, None), "cad 10000"),
    ("more than 25 per cent", (), ("percent", 25.0, ">"), "gt 25%"),
    ("at least 25%", (), ("percent", 25.0, ">="), "ge 25%"),
    ("up to GBP 800", ("GB",), ("GBP", 800.0, "<="), "le gbp 800"),
    # a negated bound is read whole, not as its last words ("less than", "exceeding")
    ("not less than GBP 36 million", ("GB",), ("GBP", 36e6, ">="), "ge gbp 36000000"),
    ("not exceeding EUR 5,000", (), ("EUR", 5000.0, "<="), "le eur 5000"),
    ("no more than 10%", (), ("percent", 10.0, "<="), "le 10%"),
    ("not more than GBP 30,000", ("GB",), ("GBP", 30000.0, "<="), "le gbp 30000"),
    ("not greater than 5%", (), ("percent", 5.0, "<="), "le 5%"),
]


@pytest.mark.parametrize(("wording", "hint", "expected", "tokens"), AMOUNTS, ids=[a[0] for a in AMOUNTS])
def test_the_critic_and_the_scorer_read_an_amount_alike(wording, hint, expected, tokens) -> None:
    (figure,) = figures(wording, hint)
    assert (figure.unit, figure.value, figure.comparator) == expected
    assert normalise(wording, hint) == tokens


DATES = [
    ("30 June 2026", date(2026, 6, 30)),
    ("June 30, 2026", date(2026, 6, 30)),
    ("30 Jun. 2026", date(2026, 6, 30)),
    ("2026-06-30", date(2026, 6, 30)),
]


@pytest.mark.parametrize(("wording", "day"), DATES, ids=[d[0] for d in DATES])
def test_the_critic_and_the_scorer_read_a_date_alike(wording, day) -> None:
    assert dates(wording) == [day]
    assert normalise(wording) == day.isoformat()


def test_a_date_is_not_read_as_an_amount_and_an_impossible_date_is_not_a_date() -> None:
    assert figures("from 10 July 2027") == []
    assert normalise("from 10 July 2027") == "from 2027-07-10"
    assert dates("31 June 2026") == [] and "2026-06-31" not in normalise("31 June 2026")


def test_facts_match_across_wordings_and_comparators_still_tell_apart() -> None:
    assert fact_found("Occasional transactions of 10 000 EUR or more.", "at least EUR 10,000")
    assert not fact_found("holding more than 25% of the shares", "25% or more")
    assert fact_found("a fee of C$10,000", "CAD 10,000", ("CA",))


COUNTS = [
    ("legal entities with 50 or more workers must", ["50 or more workers"]),
    (
        "towns of fewer than 10,000 inhabitants or fewer than 50 staff",
        ["fewer than 10,000 inhabitants", "fewer than 50 staff"],
    ),
    ("a board of at least 3 members", ["at least 3 members"]),
    ("more than EUR 10,000 in cash", []),
    ("within 30 days or more", []),
    ("more than 25 percent of the shares", []),
    ("Under Article 8, the entity", []),
    ("Employers with 50 to 249 employees had to comply", ["50 to 249 employees"]),
    ("entities with between 50 and 249 workers", ["between 50 and 249 workers"]),
    ("within 5 to 10 days", []),
]


@pytest.mark.parametrize(("wording", "expected"), COUNTS, ids=[c[0] for c in COUNTS])
def test_a_bounded_headcount_is_a_count_not_an_amount_or_a_period(wording: str, expected: list[str]) -> None:
    """A threshold of persons or units ("50 or more workers") is what a threshold item asks for, though it is
    neither an amount nor a period."""
    assert counts(wording) == expected


@pytest.mark.parametrize(
    ("wording", "expected"),
    [
        (
            "must be reported before the end of the second business day following the transaction",
            ["before the end of the second business day following"],
        ),
        ("notified on the 10th day after the breach", ["on the 10th day after"]),
        ("within 45 days after the end of the fiscal year", ["within 45 days"]),
        ("the second business day of the firm", []),
    ],
)
def test_a_period_counted_to_an_ordinal_day_is_a_period(wording: str, expected: list[str]) -> None:
    """A deadline stated as an ordinal day after an event is a period a deadline item can be answered with."""
    assert periods(wording) == expected


@pytest.mark.parametrize(
    ("wording", "expected"),
    [
        ("a civil penalty of up to three times the profit gained or loss avoided", ["three times the"]),
        ("a fine of twice the amount of the bribe", ["twice the"]),
        ("a fine of up to 3 times the benefit obtained", ["3 times the"]),
        ("inspected three times a year", []),
    ],
)
def test_a_penalty_stated_as_a_multiple_of_an_amount_is_a_measure(wording: str, expected: list[str]) -> None:
    """ "Three times the profit gained" is what a penalty item asks for, though it states no amount of money."""
    assert multiples(wording) == expected


@pytest.mark.parametrize(
    "text, lengths",
    [
        ("within five business days after the trade", {(5.0, "day")}),
        ("within 5 calendar days", {(5.0, "day")}),
        ("no later than three weeks after the request", {(3.0, "week")}),
        ("within seven (7) days, then within a period not exceeding three months", {(7.0, "day"), (3.0, "month")}),
        ("a forty-five day period", {(45.0, "day")}),
        ("the fine is EUR 5,000", set()),
        # a decimal or thousands-separated count is one number: it had been read as "5 hours" and "0 hours"
        ("cut the maximum working week from 40 to 37.5 hours", {(37.5, "hour")}),
        ("a 37.5-hour week", {(37.5, "hour")}),
        ("no more than 1,000 hours in total", {(1000.0, "hour")}),
    ],
)
def test_period_lengths_read_counts_in_words_or_digits(text: str, lengths: set[tuple[float, str]]) -> None:
    assert period_lengths(text) == lengths


BOUNDS = [
    ("more than 300 employees", [(301, math.inf)]),
    ("300 or fewer employees", [(-math.inf, 300)]),
    ("fewer than 50 workers", [(-math.inf, 49)]),
    ("at least 3 members", [(3, math.inf)]),
    ("50 to 249 employees", [(50, 249)]),
    ("between 1,000 and 2,999 employees", [(1000, 2999)]),
    ("at least one employee", [(1, math.inf)]),
    ("ten or more workers", [(10, math.inf)]),
    ("at least two of the following three conditions", []),
    ("a public entity with a total population of 50,000 or more must comply", [(50000, math.inf)]),
    ("a membership of more than 500", [(501, math.inf)]),
    ("a fine of EUR 5,000 or more", []),
]


@pytest.mark.parametrize(("wording", "bounds"), BOUNDS, ids=[b[0] for b in BOUNDS])
def test_a_bounded_count_admits_the_numbers_its_words_say(wording: str, bounds: list[tuple[float, float]]) -> None:
    assert count_bounds(wording) == bounds


def test_the_count_a_question_gives_of_its_own_subject_is_read_and_others_are_not() -> None:
    assert stated_counts("By when did a firm with 80 staff need internal channels?") == {80}
    assert stated_counts("Our subsidiary has about 1,500 employees in Germany.") == {1500}
    assert stated_counts("Does an employer with only two staff need a policy?") == {2}
    for other in (
        "Under the 2023 rules",
        "a turnover of GBP 40 million",
        "within 30 days",
        "On 1 March 2024 we",
        "One of our traders",
        "a firm with a board",
        "within three days",
    ):
        assert stated_counts(other) == set()


def test_a_margin_in_percentage_points_is_a_figure_of_its_own_unit() -> None:
    # "the reference rate plus at least 8 percentage points" had been no figure at all: a threshold item asking
    # for the statutory interest rate ranked it below sentences stating day counts
    (margin,) = figures("The statutory rate is the reference rate plus at least 8 percentage points.")
    assert margin.key == ("percentage points", 8.0) and margin.comparator == ">="
    assert [f.key for f in figures("8% above the base rate")] == [("percent", 8.0)]


@pytest.mark.parametrize(
    ("text", "bounds"),
    [
        ("by 20% for employees under 17 and by 10% for employees aged 17 to 18", [(0, 16), (17, 18)]),
        ("workers aged 21 and over", [(21, math.inf)]),
        ("persons under 18 who have not completed training", [(0, 17)]),
        ("under the age of 16", [(0, 15)]),
        ("under 18 years of age", [(0, 17)]),
        ("firms with under 25 employees", []),  # a count, not an age
        ("under 5% of turnover", []),
    ],
)
def test_age_bounds_are_read_and_counts_or_shares_are_not(text: str, bounds: list[tuple[float, float]]) -> None:
    assert age_bounds(text) == bounds


def test_an_age_the_question_gives_of_its_subject_is_read() -> None:
    assert stated_ages("Our hotel hires 16-year-old seasonal kitchen helpers") == {16}
    assert stated_ages("a worker aged 17 asks for a raise") == {17}
    assert stated_ages("workers aged 17 to 18") == set()  # a bound, not an age of the asker's
