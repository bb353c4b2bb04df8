"""A corpus the place tests build themselves: packaging-label summaries written for the tests (the rules are
illustrations, not legal facts), each with only the minimal front matter an analyst types (id, title,
jurisdiction, authority, instrument, effective, status). A union, a member state, a country and one of its
states, a province, and one country filed under both GB and UK."""

from __future__ import annotations

from datetime import date

from core.domain.documents import DocumentMeta


def _doc(doc_id: str, title: str, jurisdiction: str, authority: str, instrument: str) -> DocumentMeta:
    return DocumentMeta(
        id=doc_id,
        title=title,
        jurisdiction=jurisdiction,
        authority=authority,
        instrument=instrument,
        effective=date(2020, 1, 1),
        status="in_force",
    )


def label_corpus() -> list[tuple[DocumentMeta, list[str]]]:
    """EU, DE, US, US-NY, CA-QC, and the United Kingdom under UK (one document) and GB (another)."""
    return [
        (
            _doc("eu-pack-reg", "Packaging label regulation", "EU", "Parliament and Council", "Label Regulation"),
            ["Producers of packaged goods must print a sorting label on every sales package."],
        ),
        (
            _doc("de-pack-act", "Packaging register act", "DE", "Central Packaging Register", "Packaging Act"),
            ["Producers of packaged goods must register with the packaging register before the first sale."],
        ),
        (
            _doc("us-pack-rule", "Net quantity label rule", "US", "Trade Commission", "Label Rule"),
            ["Sellers of packaged goods must state the net quantity on the front panel of the package."],
        ),
        (
            _doc(
                "us-ny-pack-law",
                "Container code law",
                "US-NY",
                "New York State Department of Environmental Conservation (NYDEC)",
                "Container Code Law",
            ),
            ["Sellers of packaged goods must also mark rigid plastic containers with a resin code."],
        ),
        (
            _doc("ca-qc-pack", "Label language charter rules", "CA-QC", "Language Office", "Charter rules"),
            ["Labels of packaged goods must be written in French, with any other language no more prominent."],
        ),
        (
            _doc("uk-pack-regs", "Packaging reporting regulations", "UK", "Environment Agency", "Reporting Regs"),
            ["Producers of packaged goods must report the weight of packaging they place on the market each year."],
        ),
        (
            _doc("gb-pack-guide", "Packaging label guidance", "GB", "Environment Agency", "Label Guidance"),
            ["Producers of packaged goods must print a recycling label on household packaging."],
        ),
    ]
