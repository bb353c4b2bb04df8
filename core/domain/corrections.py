"""What a deficiency is about and how its correction retrieves, as typed values shared by every critic and reviser.

A deficiency's stable ID hashes its type and its subject's text (core.domain.records.deficiency_id), so each subject
kind below renders exactly one text form, and `parse_subject` reads that form back. A correction filter is kept in
the state as a plain mapping (`Deficiency.correction_filter`, whose shape saved sessions and sealed records carry);
`CorrectionFilter` builds and reads it. `widened_if_tried` is the one rule for a correction query that already ran.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict

from core.domain.records import Deficiency, DeficiencyType, ResolutionStatus


def _value(v: float) -> str:
    return f"{v:g}"


@dataclass(frozen=True)
class ItemSubject:
    """A plan item (coverage: the item has no supported claim)."""

    item_id: str

    def __str__(self) -> str:
        return self.item_id


@dataclass(frozen=True)
class JurisdictionSubject:
    """A jurisdiction the question asks about (missing_jurisdiction)."""

    code: str

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True)
class DocumentSubject:
    """A cited document (outdated_source: superseded, repealed, erroneous or not yet applicable)."""

    doc_id: str

    def __str__(self) -> str:
        return self.doc_id


APPLICATION_DATE = "application_date"
"""The part of a not-yet-applicable document an answer must state: the date it applies from."""
SIZE_THRESHOLD = "size threshold"
"""The part of a document an answer must state where it sizes whom the document binds only in words: the figure."""


@dataclass(frozen=True)
class DocumentPart:
    """A part of one document: an exemption's entity, `application_date`, or an aspect a critic names."""

    doc_id: str
    part: str

    def __str__(self) -> str:
        return f"{self.doc_id}:{self.part}"


@dataclass(frozen=True)
class ClaimSubject:
    """A claim, by its first eight words (a claim that quotes nothing its passage says)."""

    words: str

    @classmethod
    def of(cls, said: str) -> ClaimSubject:
        return cls(" ".join(said.split()[:8]))

    def __str__(self) -> str:
        return f"claim:{self.words}"


@dataclass(frozen=True)
class OffTopicClaim:
    """A claim, by its first eight words, that answers its plan item from a source on another subject."""

    item_id: str
    words: str

    @classmethod
    def of(cls, item_id: str, said: str) -> OffTopicClaim:
        return cls(item_id, " ".join(said.split()[:8]))

    def __str__(self) -> str:
        return f"{self.item_id}:off_topic:{self.words}"


@dataclass(frozen=True)
class FigureSubject:
    """A figure a claim of one section states for one plan item and its quote does not."""

    section: str
    item_id: str
    unit: str
    value: float

    def __str__(self) -> str:
        return f"{self.section}:{self.item_id}:{self.unit}:{_value(self.value)}"


@dataclass(frozen=True)
class DateSubject:
    """A date a claim of one section states for one plan item and its quote does not."""

    section: str
    item_id: str
    day: date

    def __str__(self) -> str:
        return f"{self.section}:{self.item_id}:date:{self.day.isoformat()}"


@dataclass(frozen=True)
class PeriodSubject:
    """A period (a deadline such as 'three business days') a claim states for one plan item and its quote does not."""

    section: str
    item_id: str
    period: str

    def __str__(self) -> str:
        return f"{self.section}:{self.item_id}:period:{self.period.lower()}"


@dataclass(frozen=True)
class QuestionFigure:
    """A figure the question names that the answer never addresses."""

    value: float
    unit: str

    def __str__(self) -> str:
        return f"question:{_value(self.value)} {self.unit}"


@dataclass(frozen=True)
class ThresholdSubject:
    """A named threshold of one jurisdiction on which in-force sources disagree."""

    code: str
    name: str

    def __str__(self) -> str:
        return f"{self.code}:{self.name}"


@dataclass(frozen=True)
class ItemUnit:
    """Figures of one unit on which two claims of one plan item disagree."""

    item_id: str
    unit: str

    def __str__(self) -> str:
        return f"{self.item_id}:{self.unit}"


Subject = (
    ItemSubject
    | JurisdictionSubject
    | DocumentSubject
    | DocumentPart
    | ClaimSubject
    | OffTopicClaim
    | FigureSubject
    | DateSubject
    | PeriodSubject
    | QuestionFigure
    | ThresholdSubject
    | ItemUnit
)

_OFF_TOPIC_RE = re.compile(r"^(?P<item>.+?):off_topic:(?P<words>.*)$")
_QUESTION_RE = re.compile(r"^question:(?P<value>-?[\d.]+(?:e[+-]?\d+)?) (?P<unit>\S+)$")
_DATE_RE = re.compile(r"^(?P<section>[^:]+):(?P<item>.+):date:(?P<day>\d{4}-\d{2}-\d{2})$")
_PERIOD_RE = re.compile(r"^(?P<section>[^:]+):(?P<item>.+):period:(?P<period>[^:]+)$")
_FIGURE_RE = re.compile(r"^(?P<section>[^:]+):(?P<item>.+):(?P<unit>[^:]+):(?P<value>-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)$")


def parse_subject(kind: DeficiencyType, text: str, items: Collection[str] = ()) -> Subject:
    """The typed subject of a deficiency of `kind`; `items` are the plan's item ids (which contain a colon)."""
    if text in items:
        return ItemSubject(text)
    if text.startswith("claim:"):
        return ClaimSubject(text[len("claim:") :])
    if m := _OFF_TOPIC_RE.match(text):
        return OffTopicClaim(m["item"], m["words"])
    if m := _QUESTION_RE.match(text):
        return QuestionFigure(float(m["value"]), m["unit"])
    if kind == DeficiencyType.incorrect_threshold:
        if m := _DATE_RE.match(text):
            return DateSubject(m["section"], m["item"], date.fromisoformat(m["day"]))
        if m := _PERIOD_RE.match(text):
            return PeriodSubject(m["section"], m["item"], m["period"])
        if m := _FIGURE_RE.match(text):
            return FigureSubject(m["section"], m["item"], m["unit"], float(m["value"]))
    if kind == DeficiencyType.missing_jurisdiction:
        return JurisdictionSubject(text)
    head, sep, tail = text.rpartition(":")
    if kind == DeficiencyType.contradictory_sources and sep:
        if head in items:
            return ItemUnit(head, tail)
        code, _, name = text.partition(":")
        return ThresholdSubject(code, name)
    if ":" in text:
        doc_id, _, part = text.partition(":")
        return DocumentPart(doc_id, part)
    return DocumentSubject(text)


def subject_words(text: str) -> str:
    """A subject as plain words, to widen a correction query with."""
    return text.replace(":", " ").replace("_", " ")


class CorrectionFilter(BaseModel):
    """Where a correction retrieves and what its reviser looks for: jurisdictions, plan items, documents to keep
    to or to leave out, and a figure's unit and values or the rules (exemptions) it must state."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    jurisdictions: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()
    exclude_doc_ids: tuple[str, ...] = ()
    unit: str = ""
    values: tuple[float, ...] = ()
    rules: tuple[str, ...] = ()

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> CorrectionFilter:
        """The filter a deficiency carries (unknown keys of other versions are ignored)."""
        return cls(**{k: v for k, v in stored.items() if k in cls.model_fields})

    def stored(self) -> dict[str, Any]:
        """The mapping kept in the state: lists, empty entries left out (the form sealed records hash)."""
        out: dict[str, Any] = {}
        for name, value in self:
            if value:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out


def filter_of(**kw: Any) -> dict[str, Any]:
    """A stored correction filter from `CorrectionFilter`'s fields; a misspelt key is an error."""
    return CorrectionFilter.model_validate(kw).stored()


def tried(d: Deficiency) -> bool:
    """Whether a correction already ran for this deficiency (it is addressed now, or was found again after one)."""
    return d.resolution_attempt_count > 0 or d.resolution_status == ResolutionStatus.addressed


def _same_query(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def widened_if_tried(d: Deficiency, before: Deficiency | None) -> Deficiency:
    """A correction query that already ran for this deficiency is never proposed again as it was (whatever its
    case and spacing): its narrowest filter (the documents) is dropped and the subject's words widen the query."""
    if (
        before is None
        or not tried(before)
        or not _same_query(d.suggested_correction_query, before.suggested_correction_query)
    ):
        return d
    flt = {k: v for k, v in d.correction_filter.items() if k != "doc_ids"}
    query = f"{d.suggested_correction_query} {subject_words(d.subject)}"
    return d.model_copy(update={"suggested_correction_query": query, "correction_filter": flt})
