"""Deficiency lifecycle: the one place where statuses change, as a transition table, plus cycle reconciliation."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from core.domain.records import Deficiency, ResolutionStatus

S = ResolutionStatus


class Event(str, Enum):
    """What can happen to a deficiency."""

    approved_and_retrieved = "approved_and_retrieved"
    rejected = "rejected"
    found_again = "found_again"
    found_uncorrectable = "found_uncorrectable"
    not_found = "not_found"
    confirmed = "confirmed"
    not_confirmed = "not_confirmed"


TRANSITIONS: dict[tuple[ResolutionStatus, Event], ResolutionStatus] = {
    (S.open, Event.approved_and_retrieved): S.addressed,
    (S.open, Event.rejected): S.dismissed,
    (S.open, Event.found_again): S.open,
    (S.open, Event.found_uncorrectable): S.unresolvable,
    (S.open, Event.not_found): S.resolved,
    (S.addressed, Event.found_again): S.open,
    (S.addressed, Event.found_uncorrectable): S.unresolvable,
    (S.addressed, Event.not_found): S.resolved,
    (S.addressed, Event.rejected): S.dismissed,
    (S.addressed, Event.confirmed): S.resolved,
    (S.addressed, Event.not_confirmed): S.open,
    (S.resolved, Event.found_again): S.open,
    (S.resolved, Event.found_uncorrectable): S.unresolvable,
    (S.resolved, Event.not_found): S.resolved,
    (S.unresolvable, Event.found_again): S.unresolvable,
    (S.unresolvable, Event.found_uncorrectable): S.unresolvable,
    (S.unresolvable, Event.not_found): S.resolved,
    (S.unresolvable, Event.rejected): S.dismissed,
    (S.dismissed, Event.found_again): S.dismissed,
    (S.dismissed, Event.found_uncorrectable): S.dismissed,
    (S.dismissed, Event.not_found): S.dismissed,
}
"""(status, event) -> next status. `found_again` after a correction also counts an attempt (see `apply`);
`found_uncorrectable` is a finding the critic says no retrieval can fix (e.g. a contradiction the answer already
discloses). Dismissed is terminal: the analyst's rejection is kept and disclosed even if a later revision happens to
fix it. No critic judges an analyst-added deficiency, so once its correction ran (addressed) only the analyst moves
it on: `confirmed` resolves it, `not_confirmed` opens it again as a failed attempt."""

COUNTS_ATTEMPT = {
    (S.addressed, Event.found_again),
    (S.resolved, Event.found_again),
    (S.addressed, Event.found_uncorrectable),
    (S.resolved, Event.found_uncorrectable),
    (S.addressed, Event.not_confirmed),
}

ANALYST_EVENTS: dict[Event, str] = {Event.rejected: "reject", Event.confirmed: "confirm", Event.not_confirmed: "reopen"}
"""The events an analyst causes, with the review action that carries each (the board's status choices)."""


class TransitionError(ValueError):
    """An event that is not allowed in the deficiency's current status."""


def allowed(status: ResolutionStatus, event: Event) -> bool:
    """Whether `event` may happen to a deficiency in `status`."""
    return (status, event) in TRANSITIONS


def apply(d: Deficiency, event: Event, unresolvable_after: int) -> Deficiency:
    """Apply one event; a failed correction counts an attempt and, at `unresolvable_after`, gives up."""
    key = (d.resolution_status, event)
    if key not in TRANSITIONS:
        raise TransitionError(f"{d.id}: cannot apply {event.value} to a {d.resolution_status.value} deficiency")
    target = TRANSITIONS[key]
    attempts = d.resolution_attempt_count + (1 if key in COUNTS_ATTEMPT else 0)
    if target == S.open and attempts >= unresolvable_after and key in COUNTS_ATTEMPT:
        target = S.unresolvable
    return d.model_copy(update={"resolution_status": target, "resolution_attempt_count": attempts})


def analyst_choices(status: ResolutionStatus) -> tuple[ResolutionStatus, ...]:
    """The statuses an analyst may give a deficiency in `status` on the board: the status itself and where the
    analyst's events lead from it in the table (the loop sets every other status)."""
    moves = [TRANSITIONS[(status, e)] for e in ANALYST_EVENTS if allowed(status, e)]
    return tuple(dict.fromkeys([status, *moves]))


def analyst_action(status: ResolutionStatus, chosen: ResolutionStatus) -> str | None:
    """The review action that moves a deficiency from `status` to the analyst's `chosen` status, or None when the
    table has no analyst event for that move."""
    return next(
        (
            action
            for e, action in ANALYST_EVENTS.items()
            if allowed(status, e) and TRANSITIONS[(status, e)] == chosen and chosen != status
        ),
        None,
    )


def reconcile(
    previous: Iterable[Deficiency], found: Iterable[Deficiency], cycle: int, unresolvable_after: int
) -> list[Deficiency]:
    """Statuses after a critique: known problems found again or not, new problems opened.

    Analyst-added deficiencies are never judged by the critics, so they keep their status (an addressed one waits
    for the analyst's confirmation: `awaiting_confirmation`).
    A problem found again takes the critic's fresh wording, query and origin but keeps the analyst's severity.
    A problem the critic reports as not correctable is `found_uncorrectable`: unresolvable at once, since no
    retrieval can fix it, so none is proposed.
    """
    prev = {d.id: d for d in previous}
    found_by_id = {d.id: d for d in found}
    out: list[Deficiency] = []
    for did, old in prev.items():
        if old.origin == "analyst":
            out.append(old)
            continue
        fresh = found_by_id.get(did)
        if fresh is None:
            out.append(apply(old, Event.not_found, unresolvable_after))
            continue
        moved = apply(old, _found(fresh), unresolvable_after)
        out.append(
            moved.model_copy(
                update={
                    "origin": fresh.origin,
                    "correctable": fresh.correctable,
                    "description": fresh.description,
                    "affected_section": fresh.affected_section,
                    "suggested_correction_query": fresh.suggested_correction_query,
                    "correction_filter": fresh.correction_filter,
                    "evidence_doc_ids": fresh.evidence_doc_ids,
                }
            )
        )
    for did, fresh in found_by_id.items():
        if did not in prev:
            new = fresh.model_copy(
                update={"identified_at_cycle": cycle, "resolution_status": S.open, "resolution_attempt_count": 0}
            )
            out.append(new if fresh.correctable else apply(new, Event.found_uncorrectable, unresolvable_after))
    return out


def _found(fresh: Deficiency) -> Event:
    """The event of a known problem the critic reports again."""
    return Event.found_again if fresh.correctable else Event.found_uncorrectable


def residual(deficiencies: Iterable[Deficiency]) -> list[Deficiency]:
    """Everything not resolved: what the final answer must disclose."""
    return [d for d in deficiencies if d.resolution_status != S.resolved]


def awaiting_confirmation(deficiencies: Iterable[Deficiency]) -> list[Deficiency]:
    """Analyst-added deficiencies whose correction ran: the next review (or the board after the run) asks the
    analyst whether each is resolved."""
    return [d for d in deficiencies if d.origin == "analyst" and d.resolution_status == S.addressed]


def open_ones(deficiencies: Iterable[Deficiency]) -> list[Deficiency]:
    """Deficiencies still waiting for a correction."""
    return [d for d in deficiencies if d.resolution_status == S.open]
