"""The loop's value types (pydantic): deficiencies, citations, evidence, review decisions, the hash-chained cycle
records and the approval policy. The graph's TypedDict state and its reducers are in core.loop.state.

Everything stored in a checkpoint is defined at module top level here: the serializer allow-list names a type by
module and name, so moving one would orphan the sessions already saved.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import date
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator, model_validator


class DeficiencyType(str, Enum):
    """The six kinds of problem the critics report."""

    outdated_source = "outdated_source"
    missing_jurisdiction = "missing_jurisdiction"
    incorrect_threshold = "incorrect_threshold"
    missing_exemption = "missing_exemption"
    contradictory_sources = "contradictory_sources"
    insufficient_specificity = "insufficient_specificity"


class Severity(str, Enum):
    """How much a deficiency harms the answer; `rank` orders them."""

    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"

    @property
    def rank(self) -> int:
        """0 for low up to 3 for critical."""
        return list(Severity).index(self)

    @property
    def weight(self) -> float:
        """Penalty this severity takes off the quality score (see docs/architecture.md, "Score")."""
        return SEVERITY_WEIGHTS[self.value]


SEVERITY_WEIGHTS: dict[str, float] = {"low": 0.02, "medium": 0.05, "high": 0.12, "critical": 0.2}


class ResolutionStatus(str, Enum):
    """Lifecycle of a deficiency; transitions live in core.domain.deficiencies."""

    open = "open"
    addressed = "addressed"
    resolved = "resolved"
    unresolvable = "unresolvable"
    dismissed = "dismissed"


def normalise_subject(subject: str) -> str:
    """Lower-case, collapse white space and drop punctuation that does not change meaning."""
    text = re.sub(r"[^\w:%.\-/ ]+", " ", subject.lower())
    return re.sub(r"\s+", " ", text).strip()


def deficiency_id(deficiency_type: DeficiencyType | str, subject: str) -> str:
    """Stable ID from type and normalised subject: rewording the answer keeps the same ID."""
    kind = DeficiencyType(deficiency_type).value
    digest = hashlib.sha256(f"{kind}|{normalise_subject(subject)}".encode()).hexdigest()[:10]
    return f"D-{digest}"


class Deficiency(BaseModel):
    """One actionable problem in the answer, with its lifecycle status."""

    model_config = ConfigDict(frozen=True, use_enum_values=False)

    id: str = ""
    deficiency_type: DeficiencyType
    subject: str
    description: str
    affected_section: str = ""
    affected_text: str = ""
    suggested_correction_query: str = ""
    severity: Severity = Severity.medium
    identified_at_cycle: int = 0
    resolution_status: ResolutionStatus = ResolutionStatus.open
    resolution_attempt_count: int = 0
    origin: str = "offline"
    evidence_doc_ids: tuple[str, ...] = ()
    analyst_note: str = ""
    accepted_risk: bool = False
    correctable: bool = True
    correction_filter: dict[str, Any] = Field(default_factory=dict)

    def model_post_init(self, __context: Any) -> None:
        if not self.id:
            object.__setattr__(self, "id", deficiency_id(self.deficiency_type, self.subject))

    @field_validator("evidence_doc_ids", mode="before")
    @classmethod
    def _tuple(cls, v: Any) -> Any:
        return tuple(v or ())


class Citation(BaseModel):
    """A source the answer cites, with its status at the session's as-of date."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    title: str
    jurisdiction: str
    declared_status: str
    status_at_as_of: str
    effective: date | None = None
    citation: str | None = None
    chunk_ids: tuple[str, ...] = ()
    """The passages of the document that the answer quotes."""
    passage_ids: tuple[str, ...] = ()
    """Their own ids where the corpus gives passages one (a .jsonl line's `id`)."""


class Evidence(BaseModel):
    """A short snippet that a correction retrieval found for one deficiency."""

    model_config = ConfigDict(frozen=True)

    deficiency_id: str
    query: str
    doc_id: str
    chunk_id: str
    title: str
    jurisdiction: str
    status: str
    snippet: str
    score: float
    cycle: int
    plan_item_id: str = ""
    sentences: tuple[str, ...] = ()
    """Whole sentences of the passage that serve the correction, best first (the snippet joins them)."""


_INVISIBLE_RE = re.compile(r"[\x00-\x1f\x7f\u200b-\u200f\u2060\ufeff]")
"""Control characters (NUL included) and zero-width characters: text made only of them (and spaces) is blank."""


def is_blank(text: str) -> bool:
    """Whether `text` holds nothing but whitespace, control characters and zero-width characters."""
    return not _INVISIBLE_RE.sub("", text).strip()


class ReviewDecision(BaseModel):
    """The analyst's (or the approval policy's) decision on one proposed correction."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Literal["approve", "edit", "reject", "confirm", "reopen"]
    """`confirm` / `reopen`: the analyst's answer on a deficiency they added whose correction ran (resolved, or
    not: open again, its correction retried with `query` or its own)."""
    query: str | None = None
    note: str = ""
    severity: Severity | None = None

    @field_validator("query")
    @classmethod
    def _query_not_blank(cls, v: str | None) -> str | None:
        if v is not None and is_blank(v):
            raise ValueError("an edited correction query must not be empty (or only control characters)")
        return v

    @model_validator(mode="after")
    def _edit_has_query(self) -> ReviewDecision:
        if self.action == "edit" and self.query is None:
            raise ValueError('an edit needs the edited correction query ("query")')
        return self


class AnalystDeficiency(BaseModel):
    """A deficiency the analyst adds on the board while the run is paused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    deficiency_type: DeficiencyType
    subject: str = Field(min_length=1)
    description: str = Field(min_length=1)
    suggested_correction_query: str = Field(min_length=1)
    severity: Severity = Severity.medium
    note: str = ""
    affected_section: str = ""

    @field_validator("subject", "description", "suggested_correction_query")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if is_blank(v):
            raise ValueError("must not be empty (or only control characters)")
        return v

    """The answer section (jurisdiction code) its correction belongs to, chosen on the board."""


class StrikeRequest(BaseModel):
    """A claim the analyst strikes from the answer in a review (`claim_id` from core.domain.answer), and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claim_id: str = Field(min_length=1)
    reason: str = Field(min_length=1)


class ReviewResponse(BaseModel):
    """The resume payload of the review interrupt, validated.

    Accepts `{"cycle": N, "decisions": {...}, "added": [...], "struck": [{"claim_id", "reason"}], "stop": bool,
    "reviewer": str}` or the short form
    `{"cycle": N, deficiency_id: {"action": ..., "query": ..., "note": ...}}`. `cycle` names the review answered,
    so a stale answer is told apart from the current one (the service requires it).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    cycle: StrictInt | None = None
    decisions: dict[str, ReviewDecision] = Field(default_factory=dict)
    added: tuple[AnalystDeficiency, ...] = ()
    struck: tuple[StrikeRequest, ...] = ()
    stop: StrictBool = False
    reviewer: str = "analyst"

    @classmethod
    def parse(cls, payload: Any) -> ReviewResponse:
        """Validate either accepted shape."""
        if isinstance(payload, ReviewResponse):
            return payload
        if not isinstance(payload, Mapping):
            raise ValueError("review response must be a JSON object")
        if set(payload) & {"decisions", "added", "struck", "stop", "reviewer"}:
            return cls.model_validate(dict(payload))
        rest = {k: v for k, v in payload.items() if k != "cycle"}
        return cls.model_validate({"decisions": rest, **({"cycle": payload["cycle"]} if "cycle" in payload else {})})


class DecisionRecord(BaseModel):
    """A decision as kept in the audit trail."""

    model_config = ConfigDict(frozen=True)

    deficiency_id: str
    action: str
    query: str | None = None
    note: str = ""
    decided_by: str
    automatic: bool = False


class ModelCall(BaseModel):
    """One model call of a cycle: which part asked, in which structured-output mode, the tokens it spent, and
    whether the model's reply was used or the call failed and an offline part wrote that step instead (and why)."""

    model_config = ConfigDict(frozen=True)

    role: str
    """planner, drafter, reviser or critic."""
    outcome: Literal["answered", "failed"]
    mode: str = ""
    """The structured-output mode the server answered in (json_schema, json_object, tools); '' when none did."""
    reason: str = ""
    """Why the call failed (deadline, HTTP 500, structured output refused, circuit open, ...)."""
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_estimate: int = 0
    """The prompt's size as counted before sending it (the budget's measure)."""
    seconds: float = 0.0
    dropped: int = 0
    """What validation dropped from the reply (jurisdictions, items, entity types, claims, citations, findings)."""
    left_out: int = 0
    """Passages left out of the prompt, or shortened, to keep it within the context budget."""


class EvaluationCycleRecord(BaseModel):
    """One immutable audit record per critique; `record_hash` covers the previous record's hash."""

    model_config = ConfigDict(frozen=True)

    cycle_number: int
    timestamp: str
    deficiencies_found: tuple[str, ...]
    deficiencies_resolved: tuple[str, ...]
    overall_score: float
    retrieval_queries_issued: tuple[str, ...] = ()
    decisions: tuple[DecisionRecord, ...] = ()
    engine: str = "offline"
    critics: tuple[str, ...] = ()
    node_seconds: dict[str, float] | None = None
    """Only in records written before node timings moved to the session entry (cumulative figures there); kept so
    those records still verify. New records leave it out, and so does their hash."""
    status_counts: dict[str, int] = Field(default_factory=dict)
    type_counts: dict[str, int] = Field(default_factory=dict)
    answer: str = ""
    notes: tuple[str, ...] = ()
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: tuple[ModelCall, ...] = ()
    """Each model call of the cycle (tokens, mode, outcome). Records written before calls were kept have none, and
    an empty tuple is left out of the hash, so they still verify."""
    prev_hash: str = ""
    record_hash: str = ""

    def compute_hash(self) -> str:
        """SHA-256 over every field but `record_hash` (and `node_seconds` when absent, `model_calls` when empty),
        in canonical JSON."""
        left_out = {"record_hash"} | ({"node_seconds"} if self.node_seconds is None else set())
        body = self.model_dump(mode="json", exclude=left_out | ({"model_calls"} if not self.model_calls else set()))
        return _digest(body)

    def sealed(self, prev_hash: str) -> EvaluationCycleRecord:
        """This record chained to `prev_hash`, with its own hash filled in."""
        linked = self.model_copy(update={"prev_hash": prev_hash, "record_hash": ""})
        return linked.model_copy(update={"record_hash": linked.compute_hash()})

    def label(self) -> str:
        """How verification names this record."""
        return f"cycle record {self.cycle_number}"


class HumanActRecord(BaseModel):
    """One act of a person on a deficiency, hash-chained with the cycle records: a review decision, a field the
    review or the board changed while paused (severity, status, query, note), a deficiency the analyst added, a
    post-run annotation (note, accepted risk, severity), a post-run confirmation of an analyst-added deficiency, or
    a claim struck from the answer (`deficiency_id` is then the claim's id, C-...). `prev_hash` is the hash of the record before it in the one audit chain."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["decision", "review_edit", "added", "annotation", "confirmation", "strike"]
    deficiency_id: str
    field: str
    old: str = ""
    new: str = ""
    reason: str = ""
    actor: str
    at: str
    cycle: int = 0
    """The review's cycle, or the last cycle of a finished session."""
    prev_hash: str = ""
    record_hash: str = ""

    def compute_hash(self) -> str:
        """SHA-256 over every field but `record_hash`, in canonical JSON."""
        return _digest(self.model_dump(mode="json", exclude={"record_hash"}))

    def sealed(self, prev_hash: str) -> HumanActRecord:
        """This act chained to `prev_hash`, with its own hash filled in."""
        linked = self.model_copy(update={"prev_hash": prev_hash, "record_hash": ""})
        return linked.model_copy(update={"record_hash": linked.compute_hash()})

    def label(self) -> str:
        """How verification names this act."""
        return f"human act ({self.kind} of {self.deficiency_id}: {self.field} by {self.actor} at {self.at})"


def _digest(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class ApprovalPolicy(BaseModel):
    """Which proposed corrections are decided without a person: all, none (reject all), severity>=X, manual."""

    model_config = ConfigDict(frozen=True)

    mode: Literal["manual", "all", "none", "severity"] = "manual"
    min_severity: Severity | None = None

    @classmethod
    def parse(cls, text: str | None) -> ApprovalPolicy:
        """From the CLI form `all | none | manual | severity>=high`."""
        value = (text or "manual").strip().lower()
        if value in ("manual", "all", "none"):
            return cls(mode=value)  # type: ignore[arg-type]
        match = re.fullmatch(r"severity\s*>=\s*(\w+)", value)
        if match and match.group(1) in {s.value for s in Severity}:
            return cls(mode="severity", min_severity=Severity(match.group(1)))
        raise ValueError(
            f"unknown approval policy {text!r}: use all, none, manual or severity>=low|medium|high|critical"
        )

    def __str__(self) -> str:
        return f"severity>={self.min_severity.value}" if self.mode == "severity" and self.min_severity else self.mode
