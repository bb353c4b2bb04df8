"""Small corpora that the loop tests build themselves (jurisdictions the sample corpus lacks included)."""

from __future__ import annotations

from datetime import date

from core.domain.documents import DocumentMeta, Exemption, Threshold

AS_OF = date(2026, 11, 30)
"""The as-of date of every corpus the tests build themselves."""
RU_TEXT = "Under the Payments Act, owner disclosure applies to each person holding more than 30% of a payment firm."
XY_TEXT = "In Xylandia, owner disclosure applies to each person holding 25% or more of a payment firm."
XY_GUIDANCE = DocumentMeta(
    id="xy-guidance",
    title="Xylandia owner disclosure guidance",
    jurisdiction="XY",
    aliases=("Xylandia",),
    effective=date(2015, 5, 1),
    thresholds=(Threshold(name="owner_disclosure", value=25, unit="percent", comparator=">="),),
)
"""Xylandia's one rule, in force: the second jurisdiction of the Ruritania corpora (loop and LLM tests)."""


def ruritania_corpus() -> list[tuple[DocumentMeta, list[str]]]:
    """Two fictional jurisdictions: RU (an old act, its successor not yet applicable, a wrong summary) and XY."""
    old = DocumentMeta(
        id="ru-act-2010",
        title="Ruritania Payments Act 2010",
        jurisdiction="RU",
        aliases=("Payments Act", "Ruritania"),
        effective=date(2010, 1, 1),
        applies_until=date(2028, 1, 1),
        superseded_by=("ru-code-2028",),
        thresholds=(Threshold(name="owner_disclosure", value=30, unit="percent", comparator=">"),),
        exemptions=(
            Exemption(
                entity="savings club",
                rule="Savings clubs with fewer than fifty members are exempt from owner disclosure.",
            ),
        ),
    )
    new = DocumentMeta(
        id="ru-code-2028",
        title="Ruritania Payments Code 2028",
        jurisdiction="RU",
        aliases=("Payments Code",),
        effective=date(2028, 1, 1),
        status="not_yet_applicable",
        thresholds=(Threshold(name="owner_disclosure", value=20, unit="percent", comparator=">="),),
    )
    wrong = DocumentMeta(
        id="ru-blog-wrong",
        title="Blog: Ruritania owner disclosure at 10%",
        jurisdiction="RU",
        status="erroneous",
        superseded_by=("ru-act-2010",),
        thresholds=(Threshold(name="owner_disclosure", value=10, unit="percent", comparator=">="),),
    )
    return [
        (
            old,
            [
                RU_TEXT,
                "Under the Payments Act, savings clubs with fewer than fifty members are exempt from owner disclosure.",
            ],
        ),
        (
            new,
            [
                "The Payments Code replaces the Payments Act from 1 January 2028.",
                "Under the Payments Code, owner disclosure applies to each person holding 20% or more of a payment firm.",
            ],
        ),
        (
            wrong,
            ["Ruritania owner disclosure applies to each person holding 10% or more of a payment firm, says a blog."],
        ),
        (XY_GUIDANCE, [XY_TEXT]),
    ]


RU_QUESTION = "What owner disclosure threshold applies to a savings club payment firm in Ruritania and in Xylandia?"
