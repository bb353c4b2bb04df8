"""The audit trail: one hash chain over the cycle records and the human acts, its verification and head, the acts
a review or an annotation adds, and the settings a session started with.

Cycle records and human acts are kept in two state lists but form one chain: every record's `prev_hash` is the
hash of the record written before it, whichever list that is in. Verification follows the links, so it covers
every record of both lists and names the first one that does not fit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from core.domain.clock import utc_now
from core.domain.records import Deficiency, EvaluationCycleRecord, HumanActRecord, ReviewDecision
from core.domain.wording import words

AuditRecord = EvaluationCycleRecord | HumanActRecord


def _parsed(raw: AuditRecord | Mapping[str, Any]) -> AuditRecord:
    if isinstance(raw, EvaluationCycleRecord | HumanActRecord):
        return raw
    return HumanActRecord.model_validate(raw) if "kind" in raw else EvaluationCycleRecord.model_validate(raw)


def chain_order(records: Iterable[AuditRecord | Mapping[str, Any]]) -> tuple[list[AuditRecord], str]:
    """The records in chain order from the first, following the links; with '' or what breaks the chain (a record
    that links to no record of the trail, or two records claiming the same predecessor)."""
    parsed = [_parsed(r) for r in records]
    after: dict[str, AuditRecord] = {}
    for rec in parsed:
        if rec.prev_hash in after:
            return [], f"{rec.label()}: forks the chain (another record follows the same record)"
        after[rec.prev_hash] = rec
    ordered: list[AuditRecord] = []
    prev = ""
    while prev in after:
        ordered.append(after[prev])
        prev = after[prev].record_hash
    if len(ordered) < len(parsed):
        reached = {id(r) for r in ordered}
        stray = next(r for r in parsed if id(r) not in reached)
        return ordered, f"{stray.label()}: link to the previous record is broken"
    return ordered, ""


def verify_chain(records: Iterable[AuditRecord | Mapping[str, Any]]) -> tuple[bool, str]:
    """Check every record's hash and link, cycle records and human acts alike; returns (ok, message naming the
    first broken record)."""
    parsed = [_parsed(r) for r in records]
    for rec in parsed:
        if rec.compute_hash() != rec.record_hash:
            return False, f"{rec.label()}: content does not match its hash (tampered)"
    ordered, broken = chain_order(parsed)
    if broken:
        return False, broken
    cycles = sum(isinstance(r, EvaluationCycleRecord) for r in ordered)
    acts = len(ordered) - cycles
    if not acts:
        return True, f"{cycles} cycle records verified"
    return True, f"{cycles} cycle records and {acts} human act{'s' * (acts != 1)} verified"


def chain_head(records: Iterable[AuditRecord | Mapping[str, Any]]) -> str:
    """The hash of the chain's last record ('' for an empty or broken chain): new records link to it."""
    ordered, broken = chain_order(records)
    return "" if broken or not ordered else ordered[-1].record_hash


def sealed_acts(acts: Sequence[HumanActRecord], head: str) -> list[HumanActRecord]:
    """The acts chained one after another from `head`."""
    out: list[HumanActRecord] = []
    for act in acts:
        out.append(act.sealed(out[-1].record_hash if out else head))
    return out


def decision_act(deficiency_id: str, action: str, reason: str, actor: str, cycle: int, at: str) -> HumanActRecord:
    """A person's decision on one proposal (approve, edit, reject, stop) or board edit."""
    return HumanActRecord(
        kind="decision",
        deficiency_id=deficiency_id,
        field="action",
        old="proposed",
        new=action,
        reason=reason,
        actor=actor,
        at=at,
        cycle=cycle,
    )


def field_acts(
    kind: Literal["review_edit", "annotation"],
    deficiency_id: str,
    changes: list[tuple[str, str, str]],
    reason: str,
    actor: str,
    cycle: int,
    at: str,
) -> list[HumanActRecord]:
    """One act per field whose value changed (old -> new), all for the same reason, by the same person."""
    return [
        HumanActRecord(
            kind=kind,
            deficiency_id=deficiency_id,
            field=field,
            old=old,
            new=new,
            reason=reason,
            actor=actor,
            at=at,
            cycle=cycle,
        )
        for field, old, new in changes
        if old != new
    ]


def review_acts(
    before: Deficiency, after: Deficiency, decision: ReviewDecision, actor: str, cycle: int, at: str
) -> list[HumanActRecord]:
    """A person's decision on one deficiency in a review, and each field it changed (old -> new), why: the note."""
    changes = [
        ("severity", before.severity.value, after.severity.value),
        ("status", before.resolution_status.value, after.resolution_status.value),
        ("query", before.suggested_correction_query, after.suggested_correction_query),
        ("note", before.analyst_note, after.analyst_note),
    ]
    edits = field_acts("review_edit", before.id, changes, decision.note, actor, cycle, at)
    return [decision_act(before.id, decision.action, decision.note, actor, cycle, at), *edits]


def added_act(d: Deficiency, note: str, actor: str, cycle: int, at: str) -> HumanActRecord:
    """A deficiency the analyst added on the board, in words (the act's text reaches every export as written)."""
    return HumanActRecord(
        kind="added",
        deficiency_id=d.id,
        field="deficiency",
        new=f"{words(d.deficiency_type.value)}: {d.subject} ({d.severity.value}); query: {d.suggested_correction_query}",
        reason=note,
        actor=actor,
        at=at,
        cycle=cycle,
    )


def confirmation_act(before: Deficiency, after: Deficiency, actor: str, reason: str, cycle: int) -> HumanActRecord:
    """After a run: the analyst's answer on a deficiency they added whose correction ran (status old -> new)."""
    return HumanActRecord(
        kind="confirmation",
        deficiency_id=before.id,
        field="status",
        old=before.resolution_status.value,
        new=after.resolution_status.value,
        reason=reason,
        actor=actor,
        at=utc_now(),
        cycle=cycle,
    )


def strike_act(claim_id: str, text: str, section: str, actor: str, reason: str, cycle: int) -> HumanActRecord:
    """A claim the analyst struck from the answer: its id, section and words, why."""
    return HumanActRecord(
        kind="strike",
        deficiency_id=claim_id,
        field="claim",
        old=f"{section}: {text}",
        new="struck",
        reason=reason,
        actor=actor,
        at=utc_now(),
        cycle=cycle,
    )


def annotation_acts(before: Deficiency, after: Deficiency, actor: str, reason: str, cycle: int) -> list[HumanActRecord]:
    """A post-run annotation: one act per field it changed (note, accepted risk, severity)."""
    at = utc_now()
    changes = [
        ("note", before.analyst_note, after.analyst_note),
        ("accepted_risk", str(before.accepted_risk).lower(), str(after.accepted_risk).lower()),
        ("severity", before.severity.value, after.severity.value),
    ]
    return field_acts("annotation", before.id, changes, reason, actor, cycle, at)


class SettingsSnapshot(BaseModel):
    """The termination and engine settings a session started with, kept in its list entry, so the Cycles page and
    the exports show what the session ran under rather than today's settings."""

    model_config = ConfigDict(frozen=True)

    quality_threshold: float
    blocking_severity: str
    plateau_epsilon: float
    plateau_cycles: int
    max_cycles: int
    unresolvable_after: int
    engine: str
    model: str = ""
    """The model name, for an engine that calls one."""

    def rows(self) -> list[list[str]]:
        """(setting, value) rows for tables."""
        return [
            ["Quality threshold", f"{self.quality_threshold:.2f}"],
            ["Blocking severity", self.blocking_severity],
            ["Plateau", f"improvement below {self.plateau_epsilon} for {self.plateau_cycles} cycles"],
            ["Maximum cycles", str(self.max_cycles)],
            ["Unresolvable after", f"{self.unresolvable_after} attempts"],
            ["Engine", self.engine + (f" ({self.model})" if self.model else "")],
        ]


NO_SNAPSHOT = "not recorded: this session started before settings were kept with it"
