"""The scorer: normalisation of amounts, percentages, comparators, dates and citations; residuals; recall."""

from __future__ import annotations

import pytest

from core.domain.records import Deficiency, DeficiencyType, ResolutionStatus, Severity
from core.evaluation.facts import (
    answer_body,
    detection_recall,
    fact_coverage,
    fact_found,
    normalise,
    residual_summary,
)


@pytest.mark.parametrize(
    "a, b",
    [
        ("EUR 10,000", "EUR 10000"),
        ("EUR 10,000", "€10,000"),
        ("EUR 10,000", "€ 10 000"),
        ("EUR 10,000", "10,000 euros"),
        ("EUR 10,000", "10000 EUR"),
        ("EUR 10,000", "EUR 10k"),
        ("USD 3,000", "$3,000"),
        ("USD 3,000", "US$ 3,000"),
        ("USD 3,000", "3,000 US dollars"),
        ("GBP 800", "£800"),
        ("SGD 1,500", "S$1,500"),
        ("25%", "25 percent"),
        ("25%", "25 per cent"),
        ("25%", "25 %"),
        ("25% or more", "25 percent or more"),
        ("25% or more", "at least 25 percent"),
        ("more than 25%", "exceeding 25 percent"),
        ("more than 25%", "over 25%"),
        ("more than USD 10,000", "over $10,000"),
        ("10 July 2027", "2027-07-10"),
        ("10 July 2027", "July 10, 2027"),
        ("10 July 2027", "10 Jul 2027"),
        ("10 July 2027", "10th July 2027"),
        ("13 Feb 2026", "February 13, 2026"),
        ("31 CFR 1010.230", "31 cfr 1010.230"),
        ("31 CFR 1010.230", "31 C.F.R. § 1010.230"),
        ("31 CFR 1010.230", "31CFR 1010.230"),
        ("Article 52(2)", "Art. 52(2)"),
        ("Article 52(2)", "art 52 (2)"),
        ("MLR 2017 regulation 5", "MLR 2017 reg. 5"),
        ("50% plus one", "50% + 1"),
        ("senior managing official", "Senior Managing Officials"),
        ("USD/EUR 1,000", "USD/EUR 1000"),
    ],
)
def test_equivalent_wordings_normalise_alike(a: str, b: str) -> None:
    assert normalise(a) == normalise(b)
    assert fact_found(f"The rule: {b} applies.", a)


@pytest.mark.parametrize(
    "fact, answer",
    [
        ("EUR 1,000", "transfers of EUR 10,000 or more"),  # not a prefix of a bigger amount
        ("EUR 10,000", "transfers of USD 10,000"),  # currency matters
        ("25% or more", "an ownership interest of more than 25%"),  # the comparator is the fact
        ("more than 25%", "owners holding 25% or more"),
        ("10 July 2027", "10 July 2029"),
        ("31 CFR 1010.230", "31 CFR 1010.380"),
        ("25%", "a 2.5% fee"),
        ("not covered", "covered financial institutions"),
    ],
)
def test_different_facts_do_not_match(fact: str, answer: str) -> None:
    assert not fact_found(answer, fact)


def test_a_figure_without_comparator_matches_any_comparator() -> None:
    assert fact_found("holding more than 25% of the shares", "25%")
    assert fact_found("holding 25% or more of the shares", "25%")
    assert fact_found("cash payments are allowed only up to EUR 10,000", "EUR 10,000")


def test_month_year_fact_matches_any_day_of_that_month() -> None:
    assert fact_found("The AMLR applies from 10 July 2027.", "July 2027")
    assert not fact_found("The AMLR applies from 10 June 2027.", "July 2027")


def test_citation_markers_are_not_part_of_the_answer_text() -> None:
    assert not fact_found("The rule applies. [eu-amlr-2024-1624]", "2024")
    assert fact_found("The rule [us-cdd] applies to 25% or more [us-cdd] of equity.", "25% or more of equity")


def test_alternative_wordings_count_once() -> None:
    cov = fact_coverage("No such delegated act has been adopted.", [["not adopted", "has been adopted"], "15%"])
    assert cov.found == ("not adopted",) and cov.missing == ("15%",)
    assert cov.expected == 2 and cov.ratio == 0.5


def test_the_residual_disclosure_is_not_counted_as_the_answer() -> None:
    answer = (
        "## EU\nThe AMLR threshold is 25% or more. [eu-amlr]\n\n## Residual deficiencies (not resolved)\n"
        "- [high] outdated_source (open): applies only from 10 July 2027."
    )
    assert answer_body(answer).endswith("[eu-amlr]")
    cov = fact_coverage(answer, ["25% or more", "10 July 2027"])
    assert cov.found == ("25% or more",) and cov.missing == ("10 July 2027",)


def test_no_expected_facts_gives_no_ratio() -> None:
    assert fact_coverage("anything", []).ratio is None


def _d(
    kind: DeficiencyType, subject: str, sev: Severity, status: ResolutionStatus = ResolutionStatus.open
) -> Deficiency:
    return Deficiency(deficiency_type=kind, subject=subject, description="x", severity=sev, resolution_status=status)


def test_residual_summary_counts_and_sums_severity_weights() -> None:
    items = [
        _d(DeficiencyType.outdated_source, "a", Severity.critical),
        _d(DeficiencyType.incorrect_threshold, "b", Severity.high),
        _d(DeficiencyType.incorrect_threshold, "c", Severity.low),
    ]
    s = residual_summary(items)
    assert s.count == 3
    assert s.severity == pytest.approx(0.2 + 0.12 + 0.02)
    assert s.by_type == {"incorrect_threshold": 2, "outdated_source": 1}
    assert residual_summary([]).severity == 0


def test_detection_recall() -> None:
    assert (
        detection_recall(["outdated_source", "incorrect_threshold"], ["incorrect_threshold", "missing_jurisdiction"])
        == 0.5
    )
    assert detection_recall([DeficiencyType.outdated_source], [DeficiencyType.outdated_source]) == 1.0
    assert detection_recall([], ["outdated_source"]) is None


def test_wrong_verdicts_compare_what_the_answer_says_with_what_is_expected() -> None:
    from core.domain.answer import Claim, verdict_words
    from core.evaluation.scores import wrong_verdicts

    said = verdict_words(Claim(text="EU: No, only proposed (1 May 2027): X. US: Yes. Y.", kind="verdict"))
    assert said == {"EU": "no", "US": "yes"}
    assert wrong_verdicts({"EU": "no", "US": "yes"}, said) == 0
    assert wrong_verdicts({"EU": "yes", "US": "yes"}, said) == 1
    assert wrong_verdicts("no", verdict_words(Claim(text="Yes. The rule applies.", kind="verdict"))) == 1
    assert wrong_verdicts({"EU": "no", "US": "no"}, {"*": "no"}) == 0
    assert wrong_verdicts("yes", {}) == 0  # no verdict (a disclosed gap) is not a wrong one
    assert wrong_verdicts(None, said) is None
    parts = verdict_words(Claim(text="(1) No. The period is ineffective. (2) Yes. The clause stands.", kind="verdict"))
    assert wrong_verdicts({"1": "no", "2": "no"}, parts) == 1  # a question asking two yes/nos names each part
    assert wrong_verdicts("no", parts) == 0  # a single expected verdict is held against the first part only
    # "Yes or no for each: (1) ...? (2) ...?" answered "ES: No. ..." took the question as one: its No is held
    # against each part, not lost for want of a part's key
    assert wrong_verdicts({"1": "yes", "2": "yes"}, {"ES": "no"}) == 2
    assert wrong_verdicts({"1": "yes", "2": "no"}, {"ES": "no", "EU": "yes"}) == 0  # two words: which part is whose


def test_fact_words_keeps_only_the_claims_that_carry_the_facts_found() -> None:
    from core.domain.answer import Answer, Claim
    from core.evaluation.scores import RunOutcome, fact_words

    claims = [
        Claim(text="Crypto-asset service providers apply CDD from EUR 1,000."),
        Claim(text="The regulation was published in the Official Journal on 19 June 2024 after a long debate."),
        Claim(text="Gambling providers apply CDD from EUR 2,000."),
        Claim(text="Both providers apply CDD from EUR 1,000 and EUR 2,000 respectively, as the text says at length."),
    ]
    answer = Answer().with_claims("EU", claims)
    outcome = RunOutcome("loop", answer, None, [], [], 0, 0, 0, 0, 0.0)

    kept = fact_words(outcome, ["EUR 1,000", "EUR 2,000"], ["EU"])

    assert answer.word_count() == 48
    assert kept == 15  # the two short claims stating one figure each: the long restatement and the date go
    assert fact_words(outcome, [], ["EU"]) == 0
