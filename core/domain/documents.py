"""Value types of the corpus: document metadata, chunks, search hits and filters, and the date-aware catalog."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.domain.world import equivalent_codes


class DocStatus(str, Enum):
    """Legal status of a source document, as declared or as computed at an as-of date."""

    in_force = "in_force"
    not_yet_applicable = "not_yet_applicable"
    superseded = "superseded"
    repealed = "repealed"
    proposed = "proposed"
    erroneous = "erroneous"

    @property
    def usable(self) -> bool:
        """An answer may apply it: in force, or adopted and applying from a later date (said with its date)."""
        return self in (DocStatus.in_force, DocStatus.not_yet_applicable)

    @property
    def history(self) -> bool:
        """It applied once: cited only as the history of an instrument the question asks about."""
        return self in (DocStatus.superseded, DocStatus.repealed)

    @property
    def citable(self) -> bool:
        """Retrieval may return it for an answer: anything but a mere proposal or a source flagged erroneous."""
        return self.usable or self.history


Comparator = Literal[">", ">=", "<", "<=", "=="]


class Threshold(BaseModel):
    """A numeric rule a document states, e.g. beneficial ownership `>= 25 percent`."""

    model_config = ConfigDict(frozen=True)

    name: str
    value: float
    unit: str = ""
    comparator: Comparator = ">="
    applies_to: tuple[str, ...] = ()
    effective: date | None = None
    until: date | None = None
    note: str = ""

    def applies_at(self, as_of: date) -> bool:
        """Whether this figure is the one in force on `as_of` (documents may list old and new figures)."""
        if self.effective is not None and self.effective > as_of:
            return False
        return self.until is None or as_of < self.until

    @field_validator("applies_to", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        return (v,) if isinstance(v, str) else tuple(v or ())


class Exemption(BaseModel):
    """An exemption or applicability rule for an entity type."""

    model_config = ConfigDict(frozen=True)

    entity: str
    rule: str


ArrivalKind = Literal["bundled", "path", "upload"]
UPLOAD_PREFIX = "upload:"
"""`source_path` of an uploaded file: `upload:<file name>`."""


class Provenance(BaseModel):
    """How a document arrived and whether an analyst vouches for it.

    `bundled`: the sample corpus shipped with the app (verified). `path`: ingested from a file by whoever runs
    `python -m core ingest` on the server (verified, since that takes the deployment's shell, unless its front
    matter says `verified: false`). `upload`: uploaded on the Corpus page (unverified until an analyst marks it
    verified; an upload's own front matter cannot verify it)."""

    model_config = ConfigDict(frozen=True)

    kind: ArrivalKind = "path"
    actor: str | None = None
    """Who ingested or uploaded it (None for the bundled corpus and documents stored before provenance)."""
    at: datetime | None = None
    source: str | None = None
    """The file it was read from (`upload:<name>` for an upload)."""
    verified: bool = False
    verified_by: str | None = None
    verified_at: datetime | None = None
    instructed: tuple[str, ...] = ()
    """Chunk ids of the passages that address a model or reader with instructions ("Ignore previous instructions
    ..."), found at ingest: the engines never make them claims, and the Corpus page flags the document."""

    @property
    def unverified_upload(self) -> bool:
        """An upload no analyst has verified: claims resting only on such documents are marked in the answer."""
        return self.kind == "upload" and not self.verified


class DocumentMeta(BaseModel):
    """Front matter of one corpus document. Unknown keys are kept in `extra`."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    jurisdiction: str
    jurisdiction_name: str | None = None
    """The name of a subdivision or market code (pycountry's for ISO 3166-2, else declared in the front matter)."""
    authority: str | None = None
    instrument: str | None = None
    citation: str | None = None
    published: date | None = None
    effective: date | None = None
    applies_until: date | None = None
    status: DocStatus = DocStatus.in_force
    superseded_by: tuple[str, ...] = ()
    applies_to: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    exemptions: tuple[Exemption, ...] = ()
    source_path: str | None = None
    provenance: Provenance = Provenance()
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("superseded_by", "applies_to", "topics", "aliases", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        return (v,) if isinstance(v, str) else tuple(v or ())

    @model_validator(mode="before")
    @classmethod
    def _legacy_provenance(cls, data: Any) -> Any:
        """Documents stored before provenance was recorded: an upload (by its `source_path`) is an unverified
        upload, anything else counts as a verified path ingest (what ingest would record for it today)."""
        if isinstance(data, dict) and data.get("provenance") is None:
            source = data.get("source_path")
            upload = isinstance(source, str) and source.startswith(UPLOAD_PREFIX)
            data = {
                **data,
                "provenance": Provenance(kind="upload" if upload else "path", source=source, verified=not upload),
            }
        return data


def chunk_id(doc_id: str, chunk_index: int) -> str:
    """A passage's stable id: its document's id and its position (the point id is derived from it too)."""
    return f"{doc_id}#{chunk_index}"


class Chunk(BaseModel):
    """One indexed passage of a document."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    chunk_index: int
    text: str
    heading: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Passage-level metadata kept in the payload (e.g. the passage id and extra keys of a .jsonl line)."""

    @property
    def chunk_id(self) -> str:
        """Stable chunk identifier: document id and chunk position."""
        return chunk_id(self.doc_id, self.chunk_index)


class Hit(BaseModel):
    """One ranked search result."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    chunk_id: str
    chunk_index: int
    score: float
    title: str
    jurisdiction: str
    status: str
    text: str
    heading: str = ""
    passage_id: str | None = None
    """The passage's own id (a .jsonl line's `id`); None for passages chunked from .md/.txt/.pdf files."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """The passage's other metadata (the extra keys of its .jsonl line)."""


class SearchFilter(BaseModel):
    """Payload filter of a query. `as_of` excludes documents not yet effective at that date."""

    model_config = ConfigDict(frozen=True)

    jurisdictions: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()
    exclude_doc_ids: tuple[str, ...] = ()
    as_of: date | None = None

    @field_validator("jurisdictions", mode="after")
    @classmethod
    def _same_places(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        """Every code of each jurisdiction asked: a filter on UK also finds documents filed under GB."""
        return tuple(dict.fromkeys(c for code in v for c in equivalent_codes(code)))


class Catalog:
    """Document metadata by id, with the status of each document computed at an as-of date."""

    def __init__(self, docs: Iterable[DocumentMeta]):
        self._docs: dict[str, DocumentMeta] = {d.id: d for d in docs}

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._docs

    def __len__(self) -> int:
        return len(self._docs)

    def get(self, doc_id: str) -> DocumentMeta | None:
        """Metadata of one document, or None when the corpus does not hold it."""
        return self._docs.get(doc_id)

    def all(self) -> list[DocumentMeta]:
        """Every document, in id order."""
        return [self._docs[k] for k in sorted(self._docs)]

    def jurisdictions(self) -> list[str]:
        """The jurisdiction codes present in the corpus."""
        return sorted({d.jurisdiction for d in self._docs.values()})

    def status_at(self, doc_id: str, as_of: date) -> DocStatus:
        """The document's status on `as_of`: declared error/proposal/repeal wins, then dates decide.

        A document is superseded once a successor named in `superseded_by` is itself in force at `as_of`,
        and not yet applicable before its own `effective` date.
        """
        doc = self._docs[doc_id]
        if doc.status in (DocStatus.erroneous, DocStatus.proposed, DocStatus.repealed):
            return doc.status
        if doc.applies_until is not None and as_of >= doc.applies_until:
            return DocStatus.repealed
        if doc.effective is not None and doc.effective > as_of:
            return DocStatus.not_yet_applicable
        known_successors = [self._docs[s] for s in doc.superseded_by if s in self._docs]
        for succ in known_successors:
            if succ.status in (DocStatus.erroneous, DocStatus.proposed):
                continue
            if succ.effective is None or succ.effective <= as_of:
                return DocStatus.superseded
        if doc.status == DocStatus.superseded and not known_successors:
            return DocStatus.superseded
        if doc.status == DocStatus.not_yet_applicable and doc.effective is None:
            return DocStatus.not_yet_applicable
        return DocStatus.in_force

    def predecessors_in_force(self, doc_id: str, as_of: date) -> list[DocumentMeta]:
        """Documents that name `doc_id` as successor and still apply at `as_of` (the law until it applies)."""
        return [
            d for d in self.all() if doc_id in d.superseded_by and self.status_at(d.id, as_of) == DocStatus.in_force
        ]

    def successors(self, doc_id: str) -> list[DocumentMeta]:
        """Documents that replace `doc_id`, as far as the corpus holds them."""
        doc = self._docs.get(doc_id)
        if doc is None:
            return []
        return [self._docs[s] for s in doc.superseded_by if s in self._docs]
