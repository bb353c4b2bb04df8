"""A tiny corpus the eval tests build themselves: two fictional jurisdictions the sample corpus lacks (FD, SV); and
the keys every scored row of an eval report carries."""

from __future__ import annotations

from datetime import date

from core.domain.documents import DocumentMeta, SearchFilter, Threshold
from core.evaluation.scores import AVERAGED_FIELDS
from tests.fakes import KeywordStore

QUESTION = "What owner identification threshold applies to a remitter in Freedonia and in Sylvania?"
ROW_KEYS = frozenset({"question", "facts_missing", "detected_types", *AVERAGED_FIELDS})
"""Keys of a question's row in `eval --json`: every figure the summary averages, and what the question missed."""


def freedonia_corpus() -> list[tuple[DocumentMeta, list[str]]]:
    """FD: an act in force and an erroneous blog citing a wrong figure; SV: one code in force."""
    act = DocumentMeta(
        id="fd-act-2015",
        title="Freedonia Money Transfer Act 2015",
        jurisdiction="FD",
        aliases=("Money Transfer Act", "Freedonia"),
        effective=date(2015, 1, 1),
        superseded_by=("fd-code-2028",),
        thresholds=(Threshold(name="owner_identification", value=25, unit="percent", comparator=">"),),
    )
    blog = DocumentMeta(
        id="fd-blog-wrong",
        title="Blog: Freedonia owner identification at 10%",
        jurisdiction="FD",
        status="erroneous",
        superseded_by=("fd-act-2015",),
        thresholds=(Threshold(name="owner_identification", value=10, unit="percent", comparator=">="),),
    )
    future = DocumentMeta(
        id="fd-code-2028",
        title="Freedonia Money Transfer Code 2028",
        jurisdiction="FD",
        aliases=("Money Transfer Code",),
        effective=date(2028, 1, 1),
        status="not_yet_applicable",
        thresholds=(Threshold(name="owner_identification", value=15, unit="percent", comparator=">="),),
    )
    code = DocumentMeta(
        id="sv-code-2019",
        title="Sylvania Remittance Code 2019",
        jurisdiction="SV",
        aliases=("Sylvania",),
        effective=date(2019, 3, 1),
        thresholds=(Threshold(name="owner_identification", value=20, unit="percent", comparator=">="),),
    )
    return [
        (
            act,
            [
                "Under the Money Transfer Act, a remitter applies owner identification to each owner holding more than "
                "25% of a corporate customer.",
                "The Money Transfer Act applies to every remitter licensed in Freedonia.",
                "Under the Money Transfer Act, the owner identification threshold applies from 1 January 2015.",
            ],
        ),
        (
            blog,
            ["A blog says Freedonia owner identification applies to a remitter for each owner holding 10% or more."],
        ),
        (
            future,
            [
                "Under the Money Transfer Code, a remitter must apply owner identification to each owner holding "
                "15% or more of a corporate customer."
            ],
        ),
        (
            code,
            [
                "In Sylvania, a remitter applies owner identification to each owner holding 20% or more of a "
                "corporate customer.",
                "The Sylvania Remittance Code applies to every remitter and sets its owner identification duties.",
            ],
        ),
    ]


def clean_corpus() -> list[tuple[DocumentMeta, list[str]]]:
    """Only SV: an answer the critic finds nothing wrong with."""
    return [d for d in freedonia_corpus() if d[0].jurisdiction == "SV"]


class RecordingStore(KeywordStore):
    """KeywordStore that also records every k it was asked for."""

    def __init__(self, docs: list[tuple[DocumentMeta, list[str]]]):
        super().__init__(docs)
        self.ks: list[int] = []

    def search(self, query: str, k: int = 10, flt: SearchFilter | None = None, mode: str = "hybrid"):  # type: ignore[override]
        self.ks.append(k)
        return super().search(query, k=k, flt=flt, mode=mode)
