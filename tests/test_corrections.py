"""Deficiency subjects and correction filters as typed values: one text form per subject kind (from which the
stable IDs are hashed), read back by the revisers; the one rule for a correction query that already ran."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from core.domain.corrections import (
    APPLICATION_DATE,
    ClaimSubject,
    CorrectionFilter,
    DateSubject,
    DocumentPart,
    DocumentSubject,
    FigureSubject,
    ItemSubject,
    ItemUnit,
    JurisdictionSubject,
    QuestionFigure,
    ThresholdSubject,
    filter_of,
    parse_subject,
    widened_if_tried,
)
from core.domain.records import Deficiency, ResolutionStatus, deficiency_id
from core.domain.records import DeficiencyType as T

ITEMS = ("EU:threshold", "UK:threshold", "UK:date")
PINNED = [
    # kind, subject, its text, the ID sessions saved before the typed subjects carry
    (T.outdated_source, DocumentSubject("eu-amld4-2015-849"), "eu-amld4-2015-849", "D-58bf390d19"),
    (T.missing_jurisdiction, JurisdictionSubject("SG"), "SG", "D-30494d9107"),
    (T.insufficient_specificity, ItemSubject("EU:threshold"), "EU:threshold", "D-23381cd59a"),
    (
        T.missing_exemption,
        DocumentPart("us-fincen-cdd-2016", "pooled investment vehicle"),
        "us-fincen-cdd-2016:pooled investment vehicle",
        "D-5ee1ab4a3e",
    ),
    (
        T.insufficient_specificity,
        DocumentPart("eu-amlr-2024-1624", APPLICATION_DATE),
        "eu-amlr-2024-1624:application_date",
        "D-83d4dbec46",
    ),
    (
        T.insufficient_specificity,
        ClaimSubject("The threshold for beneficial ownership is 25% or"),
        "claim:The threshold for beneficial ownership is 25% or",
        "D-1f0b8f061d",
    ),
    (
        T.incorrect_threshold,
        FigureSubject("EU", "EU:threshold", "percent", 25.0),
        "EU:EU:threshold:percent:25",
        "D-cbc6a74277",
    ),
    (
        T.incorrect_threshold,
        DateSubject("UK", "UK:date", date(2026, 6, 30)),
        "UK:UK:date:date:2026-06-30",
        "D-f745e69b09",
    ),
    (T.insufficient_specificity, QuestionFigure(10000.0, "EUR"), "question:10000 EUR", "D-d3af01a1bd"),
    (
        T.contradictory_sources,
        ThresholdSubject("UK", "transfer_of_funds_cdd"),
        "UK:transfer_of_funds_cdd",
        "D-953eba2863",
    ),
    (T.contradictory_sources, ItemUnit("UK:threshold", "GBP"), "UK:threshold:GBP", "D-a58efdb37e"),
]


@pytest.mark.parametrize(("kind", "subject", "text", "did"), PINNED, ids=[p[2] for p in PINNED])
def test_each_subject_has_one_text_its_id_is_pinned_and_it_reads_back(kind, subject, text, did) -> None:
    assert str(subject) == text
    assert deficiency_id(kind, text) == did
    assert parse_subject(kind, text, ITEMS) == subject


def test_a_claim_subject_is_named_by_the_claims_first_eight_words() -> None:
    said = "The threshold for beneficial ownership is 25% or more of the shares."
    assert ClaimSubject.of(said) == ClaimSubject("The threshold for beneficial ownership is 25% or")


def test_a_filter_is_stored_without_its_empty_entries_and_a_misspelt_key_is_refused() -> None:
    stored = filter_of(jurisdictions=["EU"], items=[], unit="EUR", values=[10000.0])
    assert stored == {"jurisdictions": ["EU"], "unit": "EUR", "values": [10000.0]}
    assert CorrectionFilter.of(stored) == CorrectionFilter(jurisdictions=("EU",), unit="EUR", values=(10000.0,))
    assert CorrectionFilter.of({"items": ["EU:threshold"], "from_a_later_version": 1}).items == ("EU:threshold",)
    with pytest.raises(ValidationError):
        filter_of(jurisdiction=["EU"])


def _d(query: str, **kw) -> Deficiency:
    return Deficiency(
        deficiency_type=T.outdated_source,
        subject="eu-doc:application_date",
        description="x",
        suggested_correction_query=query,
        correction_filter=filter_of(doc_ids=["eu-doc"], jurisdictions=["EU"]),
        **kw,
    )


def test_a_query_that_already_ran_is_widened_whatever_its_case_and_spacing() -> None:
    before = _d("AMLR  application date", resolution_status=ResolutionStatus.addressed)
    again = widened_if_tried(_d("amlr application date"), before)
    assert again.suggested_correction_query == "amlr application date eu-doc application date"
    assert again.correction_filter == {"jurisdictions": ["EU"]}
    assert widened_if_tried(_d("another query"), before).suggested_correction_query == "another query"
    assert widened_if_tried(_d("AMLR application date"), _d("AMLR application date")).correction_filter["doc_ids"]
