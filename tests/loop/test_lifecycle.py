"""Deficiency IDs, the merge reducer and the lifecycle transition table."""

from __future__ import annotations

import pytest

from core.domain.audit import verify_chain
from core.domain.deficiencies import (
    TRANSITIONS,
    Event,
    TransitionError,
    analyst_action,
    analyst_choices,
    apply,
    awaiting_confirmation,
    reconcile,
    residual,
)
from core.domain.records import Deficiency, DeficiencyType, EvaluationCycleRecord, ResolutionStatus
from core.loop.state import merge_deficiencies

S = ResolutionStatus


def make(subject: str = "EU", status: S = S.open, attempts: int = 0, **kw: object) -> Deficiency:
    return Deficiency(
        deficiency_type=DeficiencyType.missing_jurisdiction,
        subject=subject,
        description=kw.pop("description", "x"),
        resolution_status=status,
        resolution_attempt_count=attempts,
        **kw,
    )


def test_id_is_stable_across_rewording_and_subject_spelling() -> None:
    a = make(" eu ", description="The answer misses the EU.", affected_text="sentence one")
    b = make("EU", description="No EU source is cited at all.", affected_text="another sentence")
    assert a.id == b.id and a.id.startswith("D-")
    other = Deficiency(deficiency_type=DeficiencyType.outdated_source, subject="EU", description="x")
    assert other.id != a.id


@pytest.mark.parametrize(
    ("status", "event", "attempts", "expected", "expected_attempts"),
    [
        (S.open, Event.approved_and_retrieved, 0, S.addressed, 0),
        (S.open, Event.rejected, 0, S.dismissed, 0),
        (S.open, Event.not_found, 0, S.resolved, 0),
        (S.open, Event.found_again, 0, S.open, 0),
        (S.addressed, Event.not_found, 0, S.resolved, 0),
        (S.addressed, Event.found_again, 0, S.open, 1),
        (S.addressed, Event.found_again, 1, S.unresolvable, 2),
        (S.resolved, Event.found_again, 0, S.open, 1),
        (S.dismissed, Event.found_again, 0, S.dismissed, 0),
        (S.dismissed, Event.not_found, 0, S.dismissed, 0),
        (S.unresolvable, Event.found_again, 2, S.unresolvable, 2),
        (S.unresolvable, Event.not_found, 2, S.resolved, 2),
        (S.unresolvable, Event.rejected, 2, S.dismissed, 2),
        (S.open, Event.found_uncorrectable, 0, S.unresolvable, 0),
        (S.addressed, Event.found_uncorrectable, 0, S.unresolvable, 1),
        (S.resolved, Event.found_uncorrectable, 0, S.unresolvable, 1),
        (S.dismissed, Event.found_uncorrectable, 0, S.dismissed, 0),
        (S.addressed, Event.confirmed, 0, S.resolved, 0),
        (S.addressed, Event.not_confirmed, 0, S.open, 1),
        (S.addressed, Event.not_confirmed, 1, S.unresolvable, 2),
    ],
)
def test_transition_table(status: S, event: Event, attempts: int, expected: S, expected_attempts: int) -> None:
    out = apply(make(status=status, attempts=attempts), event, unresolvable_after=2)
    assert (out.resolution_status, out.resolution_attempt_count) == (expected, expected_attempts)


def test_every_table_entry_is_reachable_and_illegal_events_raise() -> None:
    assert len(TRANSITIONS) == 21
    with pytest.raises(TransitionError):
        apply(make(status=S.resolved), Event.approved_and_retrieved, 2)
    with pytest.raises(TransitionError):
        apply(make(status=S.open), Event.confirmed, 2)
    with pytest.raises(TransitionError):
        apply(make(status=S.dismissed), Event.rejected, 2)


def test_reconcile_opens_new_resolves_missing_and_counts_attempts() -> None:
    kept = make("EU", status=S.addressed)
    gone = make("US", status=S.addressed)
    analyst = make("SG", status=S.addressed, origin="analyst")
    found = [make("EU", description="reworded", origin="llm+rules"), make("UK")]
    out = {d.subject: d for d in reconcile([kept, gone, analyst], found, cycle=3, unresolvable_after=3)}
    assert out["EU"].resolution_status == S.open and out["EU"].resolution_attempt_count == 1
    assert out["EU"].description == "reworded" and out["EU"].origin == "llm+rules"
    assert out["US"].resolution_status == S.resolved
    assert out["SG"].resolution_status == S.addressed
    assert out["UK"].resolution_status == S.open and out["UK"].identified_at_cycle == 3
    assert [d.subject for d in residual(out.values())] == ["EU", "SG", "UK"]


def test_a_finding_no_retrieval_can_fix_is_unresolvable_at_once() -> None:
    known = make("EU", status=S.addressed)
    found = [make("EU", correctable=False), make("US", correctable=False)]
    out = {d.subject: d for d in reconcile([known], found, cycle=1, unresolvable_after=3)}
    assert (out["EU"].resolution_status, out["EU"].resolution_attempt_count) == (S.unresolvable, 1)
    assert (out["US"].resolution_status, out["US"].resolution_attempt_count) == (S.unresolvable, 0)


@pytest.mark.parametrize(
    ("status", "choices"),
    [
        (S.open, (S.open, S.dismissed)),
        (S.addressed, (S.addressed, S.dismissed, S.resolved, S.open)),
        (S.unresolvable, (S.unresolvable, S.dismissed)),
        (S.resolved, (S.resolved,)),
        (S.dismissed, (S.dismissed,)),
    ],
)
def test_analyst_choices_are_the_tables_analyst_moves(status: S, choices: tuple[S, ...]) -> None:
    assert analyst_choices(status) == choices
    events = {"reject": Event.rejected, "confirm": Event.confirmed, "reopen": Event.not_confirmed}
    for chosen in choices[1:]:
        action = analyst_action(status, chosen)
        assert action in events
        assert apply(make(status=status), events[action], 2).resolution_status == chosen
    assert analyst_action(status, status) is None


def test_an_analyst_added_deficiency_waits_for_its_analyst() -> None:
    """No critic re-checks it: addressed after its correction, it stays so (disclosed) until the analyst says."""
    mine = make("SG", status=S.addressed, origin="analyst")
    critics = make("EU", status=S.addressed)
    out = reconcile([mine, critics], [], cycle=2, unresolvable_after=2)
    assert awaiting_confirmation(out) == [mine] and mine in residual(out)
    assert awaiting_confirmation([critics]) == []


def test_merge_reducer_accepts_dicts_validates_and_never_mutates() -> None:
    left = [make("EU")]
    snapshot = [d.model_dump() for d in left]
    right = [{**make("EU").model_dump(), "resolution_status": "addressed"}, make("US").model_dump()]
    merged = merge_deficiencies(left, right)
    assert [d.resolution_status for d in merged] == [S.addressed, S.open]
    assert [d.model_dump() for d in left] == snapshot
    with pytest.raises(ValueError):
        merge_deficiencies(left, [{"deficiency_type": "not_a_type", "subject": "x", "description": "y"}])


def test_audit_chain_detects_tampering() -> None:
    records, prev = [], ""
    for n in range(3):
        rec = EvaluationCycleRecord(
            cycle_number=n,
            timestamp="t",
            deficiencies_found=("D-1",),
            deficiencies_resolved=(),
            overall_score=0.5 + n / 10,
        ).sealed(prev)
        records.append(rec)
        prev = rec.record_hash
    assert verify_chain(records) == (True, "3 cycle records verified")
    forged = records[1].model_copy(update={"overall_score": 0.99})
    ok, message = verify_chain([records[0], forged, records[2]])
    assert not ok and "cycle record 1" in message
    dropped = verify_chain([records[0], records[2]])
    assert not dropped[0] and "broken" in dropped[1]
