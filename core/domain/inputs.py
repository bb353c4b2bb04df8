"""Checks on what a person submits (question, as-of date, cycles, review decisions), each failing with an
InputError whose message names the problem and what to do."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from datetime import date
from typing import Any

from pydantic import ValidationError

from core.domain.limits import MAX_CYCLES, MAX_NOTE_CHARS, MIN_AS_OF, latest_as_of
from core.domain.records import ApprovalPolicy, ResolutionStatus, ReviewResponse, deficiency_id
from core.domain.results import RunResult
from core.domain.safe_markdown import CONTROL_RE

ISO_DAY_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
"""A calendar date written exactly YYYY-MM-DD (no week dates, no basic format, no time)."""


class InputError(ValueError):
    """Bad input from a person: the message names the problem and what to do."""


def clean_text(text: str) -> str:
    """Free text with control characters replaced by spaces."""
    return CONTROL_RE.sub(" ", text)


def parse_day(text: str) -> date:
    """A date written exactly YYYY-MM-DD; ValueError for anything else (`date.fromisoformat` alone also takes
    `20260101` and the week date `2026-W01-1`)."""
    if not ISO_DAY_RE.fullmatch(text):
        raise ValueError(f"{text!r} is not a date in the form YYYY-MM-DD")
    return date.fromisoformat(text)


def validate_question(question: str, max_chars: int) -> str:
    """A clean question or an InputError naming what is wrong (one of only invisible characters is empty)."""
    if not isinstance(question, str):
        raise InputError("the question must be text")
    cleaned = clean_text(question).strip()
    if not "".join(ch for ch in cleaned if unicodedata.category(ch) != "Cf").strip():
        raise InputError("the question is empty: type a regulatory question")
    if len(cleaned) > max_chars:
        raise InputError(f"the question has {len(cleaned)} characters; the limit is {max_chars}: shorten it")
    return cleaned


def validate_as_of(as_of: date | str | None) -> date:
    """The as-of date, defaulting to today, within MIN_AS_OF..latest_as_of()."""
    if as_of is None or as_of == "":
        return date.today()
    if isinstance(as_of, str):
        try:
            as_of = parse_day(as_of)
        except ValueError as exc:
            raise InputError(f"as-of date {as_of!r} is not a date in YYYY-MM-DD form") from exc
    latest = latest_as_of()
    if not (MIN_AS_OF <= as_of <= latest):
        raise InputError(f"as-of date {as_of.isoformat()} is outside {MIN_AS_OF.isoformat()}..{latest.isoformat()}")
    return as_of


def validate_max_cycles(cycles: int) -> int:
    """The number of correction cycles, within 0..MAX_CYCLES."""
    if not 0 <= cycles <= MAX_CYCLES:
        raise InputError(f"max cycles must be between 0 and {MAX_CYCLES}, not {cycles}")
    return cycles


def validate_policy(approve: str | None) -> ApprovalPolicy:
    """The approval policy named by `approve` (all, none, manual, severity>=X)."""
    try:
        return ApprovalPolicy.parse(approve)
    except ValueError as exc:
        raise InputError(str(exc)) from exc


def describe_invalid(exc: ValidationError) -> str:
    """The first error of a validation as `field.path: what is wrong (got value)`, e.g.
    `decisions.D-1.action: Input should be 'approve', 'edit' or 'reject' (got 'aprove')`."""
    err = exc.errors()[0]
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".") or "the decisions"
    message = str(err["msg"]).removeprefix("Value error, ")
    if "input" not in err or isinstance(err["input"], Mapping):  # a whole object: its fields are named above
        return f"{field}: {message}"
    shown = repr(err["input"])
    return f"{field}: {message} (got {shown if len(shown) <= 80 else shown[:79] + '…'})"


def cap(text: str | None, limit: int, what: str, setting: str | None = None) -> None:
    """Refuse `text` longer than `limit`, naming what it is and the setting that raises the limit."""
    if text is not None and len(text) > limit:
        where = f" ({setting})" if setting else ""
        raise InputError(f"{what} has {len(text)} characters; the limit is {limit}{where}: shorten it")


def parse_review(decisions: Any, max_query_chars: int, current: RunResult) -> ReviewResponse:
    """The decisions as a ReviewResponse that answers the pending review of `current`, within the caps, with
    analyst-added rows made unique by stable ID (a row entered twice is one deficiency, corrected once)."""
    try:
        response = ReviewResponse.parse(decisions)
    except ValidationError as exc:
        raise InputError(f"invalid review decisions: {describe_invalid(exc)}") from exc
    except ValueError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"invalid review decisions: {first}") from exc
    limit = max_query_chars
    for did, d in response.decisions.items():
        cap(d.query, limit, f"the edited query of {did}", "WORKBENCH_MAX_QUERY_CHARS")
        cap(d.note, MAX_NOTE_CHARS, f"the note on {did}")
    unique: dict[str, Any] = {}
    for n, added in enumerate(response.added, start=1):
        cap(added.suggested_correction_query, limit, f"the query of added row {n}", "WORKBENCH_MAX_QUERY_CHARS")
        cap(added.description, MAX_NOTE_CHARS, f"the description of added row {n}")
        cap(added.note, MAX_NOTE_CHARS, f"the note of added row {n}")
        unique.setdefault(deficiency_id(added.deficiency_type, added.subject), added)
    response = response.model_copy(update={"added": tuple(unique.values())})
    for strike in response.struck:
        cap(strike.reason, MAX_NOTE_CHARS, f"the reason for striking {strike.claim_id}")
        if current.answer is None or current.answer.find(strike.claim_id) is None:
            raise InputError(f"the answer under review holds no claim {strike.claim_id}: it cannot be struck")
    _check_answers(response, current)
    return response


def _check_answers(response: ReviewResponse, current: RunResult) -> None:
    """Refuse decisions that do not answer the pending review: another (or no) cycle, unknown deficiencies, a
    decision on a deficiency this review does not ask about (beyond the board's edits of severity, note or
    dismissal on addressed, unresolvable or dismissed ones), a confirmation of a deficiency that awaits none, or a
    proposal left undecided. Confirmations may be left unanswered: the deficiency then stays addressed, asked
    again at the next review."""
    review = current.pending_review or {}
    cycle = review.get("cycle")
    if response.cycle is None:
        raise InputError(
            f'the decisions do not name the review they answer: add "cycle": {cycle} '
            f"(session {current.thread_id} waits at the review of cycle {cycle})"
        )
    if response.cycle != cycle:
        raise InputError(
            f"the decisions answer the review of cycle {response.cycle}, but session {current.thread_id} "
            f"waits at the review of cycle {cycle}: they are stale; decide the current proposals"
        )
    by_id = {d.id: d for d in current.identified_deficiencies}
    unknown = set(response.decisions) - set(by_id)
    if unknown:
        raise InputError(f"decisions name unknown deficiencies: {', '.join(sorted(unknown))}")
    pending_ids = {p["id"] for p in review.get("proposals", [])}
    confirmable = {p["id"] for p in review.get("confirmations", [])}
    editable = {ResolutionStatus.addressed, ResolutionStatus.unresolvable, ResolutionStatus.dismissed}
    for did, decision in sorted(response.decisions.items()):
        if decision.action in ("confirm", "reopen") and did not in confirmable:
            raise InputError(
                f"{did} does not wait for a confirmation in the review of cycle {cycle}: only a deficiency you "
                "added, whose correction ran, is confirmed resolved or reopened"
            )
        if did in pending_ids or decision.action == "reopen":
            continue
        d = by_id[did]
        if d.resolution_status not in editable:
            why = (
                "decided by the approval policy" if did in review.get("auto_decided", {}) else d.resolution_status.value
            )
            raise InputError(f"{did} is not pending in the review of cycle {cycle} ({why}): remove its decision")
        if decision.action == "edit" or decision.query is not None:
            raise InputError(
                f"{did} is not pending in the review of cycle {cycle} ({d.resolution_status.value}): "
                "its correction query is not run; only severity, note or dismissal can change"
            )
    missing = pending_ids - set(response.decisions)
    if missing and not response.stop:
        raise InputError(f"no decision for {len(missing)} proposed correction(s): {', '.join(sorted(missing))}")
