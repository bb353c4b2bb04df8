"""A session's outcome, computed once: where it stands (the status enum), its counts, the badge (colour and
words), the headline sentence and why the loop stopped. The Research, Sessions, Inbox, Cycles and Export pages, the
CLI and the exports all show these, so they never disagree.

The counts are computed from a session's deficiencies and cycle records (`count`) and kept with the session's list
entry, so the session list shows the same figures without reading every checkpoint; the words follow from the
counts alone (`outcome`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from core.domain.deficiencies import awaiting_confirmation
from core.domain.records import Deficiency, EvaluationCycleRecord, ResolutionStatus, Severity
from core.domain.stop_reasons import NO_OPEN_DEFICIENCIES, NOTHING_FOUND_TEXT, describe
from core.domain.wording import plural


class SessionStatus(StrEnum):
    """Where a session stands. EMPTY (no checkpoint yet) is resolved by the list entry to INTERRUPTED or FAILED."""

    running = "running"
    awaiting_review = "awaiting_review"
    interrupted = "interrupted"
    completed = "completed"
    failed = "failed"
    empty = "empty"

    @property
    def words(self) -> str:
        """The status in words (`awaiting review`)."""
        return self.value.replace("_", " ")


SEVERITY_COLORS: dict[Severity, str] = {
    Severity.low: "gray",
    Severity.medium: "yellow",
    Severity.high: "orange",
    Severity.critical: "red",
}
"""The one severity palette (Streamlit colour names) of badges, boards and charts."""
STATUS_COLORS: dict[SessionStatus, str] = {
    SessionStatus.running: "blue",
    SessionStatus.awaiting_review: "orange",
    SessionStatus.interrupted: "red",
    SessionStatus.failed: "red",
    SessionStatus.empty: "gray",
}
"""Badge colours of sessions that have not finished."""
BLOCKING_COLOR, RESIDUAL_COLOR, CLEAN_COLOR = "red", "orange", "green"
"""A finished session's badge: a live residual at or above the blocking severity, any other live residual, none."""
NO_CORRECTION_HELPED = "stopped: no correction helped"


class OutcomeCounts(BaseModel):
    """The figures of a session's outcome. `live` residuals are those still counting against the answer: not
    dismissed and not accepted as a risk."""

    model_config = ConfigDict(frozen=True)

    found: int = 0
    """Every deficiency identified in the session (critics' and analyst's), whatever its status now."""
    resolved: int = 0
    residual: int = 0
    """Not resolved: disclosed with the answer."""
    open: int = 0
    awaiting_confirmation: int = 0
    """Analyst-added deficiencies whose correction ran: the analyst confirms whether they are resolved."""
    unresolvable: int = 0
    dismissed: int = 0
    accepted_risk: int = 0
    live_by_severity: dict[str, int] = Field(default_factory=dict)
    blocking: int = 0
    """Live residuals at or above the session's blocking severity."""
    struck: int = 0
    cycles: int = 0
    first_score: float | None = None
    last_score: float | None = None
    flat: bool = False
    """Corrections ran (two or more cycles) and the score did not move by the session's plateau epsilon."""
    pending: int = 0
    """Proposed corrections waiting in the open review."""
    review_cycle: int | None = None

    @property
    def live(self) -> int:
        """Residuals still counting against the answer."""
        return sum(self.live_by_severity.values())

    def line(self) -> str:
        """The counts as one line: `5 deficiencies found · 2 resolved · 3 not resolved (1 high, 2 dismissed)`."""
        parts = [plural(self.found, "deficiency", "deficiencies") + " found", f"{self.resolved} resolved"]
        parts.append(f"{self.residual} not resolved" + (f" ({self.breakdown()})" if self.breakdown() else ""))
        if self.struck:
            parts.append(plural(self.struck, "claim") + " struck")
        return " · ".join(parts)

    def breakdown(self) -> str:
        """The residuals by what they are: live ones by severity (worst first), then dismissed, accepted risk and
        those awaiting the analyst's confirmation."""
        parts = [
            f"{self.live_by_severity[s.value]} {s.value}"
            for s in sorted(Severity, key=lambda s: -s.rank)
            if self.live_by_severity.get(s.value)
        ]
        if self.dismissed:
            parts.append(f"{self.dismissed} dismissed")
        if self.accepted_risk:
            parts.append(f"{self.accepted_risk} accepted risk")
        return ", ".join(parts)


class Outcome(BaseModel):
    """What every page, the CLI and the exports say about a session."""

    model_config = ConfigDict(frozen=True)

    status: SessionStatus
    counts: OutcomeCounts
    color: str
    badge: str
    """The status wording: `completed with 3 residuals (1 high, 2 dismissed)`, `stopped: no correction helped`."""
    headline: str
    """One sentence on the outcome."""
    reason: str = ""
    """Why the loop stopped, in a sentence ('' while it has not)."""

    def badge_markdown(self) -> str:
        """The badge as Streamlit Markdown (fixed markup: the words come from counts and fixed vocabularies)."""
        return f":{self.color}-badge[{self.badge}]"


def live(d: Deficiency) -> bool:
    """Whether a residual deficiency still counts against the answer (not dismissed, no accepted risk)."""
    return d.resolution_status != ResolutionStatus.dismissed and not d.accepted_risk


def count(
    identified: Iterable[Deficiency],
    residual: Iterable[Deficiency],
    history: Sequence[EvaluationCycleRecord],
    *,
    blocking: Severity | None = None,
    epsilon: float = 0.0,
    pending_review: Mapping[str, Any] | None = None,
    struck: int = 0,
) -> OutcomeCounts:
    """The counts of a session: `blocking` is its blocking severity (None for a session that kept no settings:
    then no residual is called blocking) and `epsilon` the score change below which the score counts as flat."""
    found = list(identified)
    left = list(residual)
    living = [d for d in left if live(d)]
    scores = [r.overall_score for r in history]
    flat = len(scores) > 1 and max(scores) - scores[0] <= epsilon
    S = ResolutionStatus
    return OutcomeCounts(
        found=len(found),
        resolved=sum(d.resolution_status == S.resolved for d in found),
        residual=len(left),
        open=sum(d.resolution_status == S.open for d in left),
        awaiting_confirmation=len(awaiting_confirmation(left)),
        unresolvable=sum(d.resolution_status == S.unresolvable for d in left),
        dismissed=sum(d.resolution_status == S.dismissed for d in left),
        accepted_risk=sum(d.accepted_risk and d.resolution_status != S.dismissed for d in left),
        live_by_severity={s.value: n for s in Severity if (n := sum(d.severity == s for d in living))},
        blocking=0 if blocking is None else sum(d.severity.rank >= blocking.rank for d in living),
        struck=struck,
        cycles=len(history),
        first_score=scores[0] if scores else None,
        last_score=scores[-1] if scores else None,
        flat=flat,
        pending=len((pending_review or {}).get("proposals", [])),
        review_cycle=(pending_review or {}).get("cycle"),
    )


def outcome(status: SessionStatus | str, reason: str | None, counts: OutcomeCounts | None) -> Outcome:
    """The badge, headline and stop sentence of a session in `status` that stopped for `reason`; with counts None
    (a list entry that kept none) only what the status and the reason say."""
    status = SessionStatus(status)
    if counts is None:
        said = describe(reason) if status == SessionStatus.completed else _unfinished_headline(status, OutcomeCounts())
        return Outcome(
            status=status,
            counts=OutcomeCounts(),
            color=STATUS_COLORS.get(status, "gray"),
            badge=status.words,
            headline=said,
            reason=describe(reason) if status == SessionStatus.completed else "",
        )
    if status != SessionStatus.completed:
        return Outcome(
            status=status,
            counts=counts,
            color=STATUS_COLORS.get(status, "gray"),
            badge=_unfinished_badge(status, counts),
            headline=_unfinished_headline(status, counts),
        )
    no_help = counts.flat and counts.resolved == 0 and counts.residual > 0
    if no_help:
        badge = NO_CORRECTION_HELPED
    elif counts.residual:
        badge = f"completed with {plural(counts.residual, 'residual')} ({counts.breakdown()})"
    else:
        badge = "completed"
    color = BLOCKING_COLOR if counts.blocking else RESIDUAL_COLOR if counts.live else CLEAN_COLOR
    return Outcome(
        status=status,
        counts=counts,
        color=color,
        badge=badge,
        headline=_finished_headline(counts, no_help),
        reason=_reason(reason, counts),
    )


def _finished_headline(c: OutcomeCounts, no_help: bool) -> str:
    if not c.found:
        return NOTHING_FOUND_TEXT
    if no_help:
        score = (
            f" the score stayed at {c.last_score:.2f} over {c.cycles} cycles and" if c.last_score is not None else ""
        )
        return f"No correction helped:{score} none of the {plural(c.found, 'deficiency', 'deficiencies')} found was resolved."
    if not c.residual:
        return (
            "The one deficiency found was resolved."
            if c.found == 1
            else f"All {c.found} deficiencies found were resolved."
        )
    remain = "remains" if c.residual == 1 else "remain"
    text = f"{c.resolved} of {plural(c.found, 'deficiency', 'deficiencies')} found resolved; {c.residual} {remain}"
    text += f" ({c.breakdown()})" if c.breakdown() else ""
    text += " and the answer discloses " + ("it." if c.residual == 1 else "them.")
    if c.awaiting_confirmation:
        text += f" {plural(c.awaiting_confirmation, 'deficiency', 'deficiencies')} you added "
        text += "waits" if c.awaiting_confirmation == 1 else "wait"
        text += " for your confirmation that the correction resolved it."
    return text


def _reason(reason: str | None, c: OutcomeCounts) -> str:
    """Why the loop stopped; "no deficiency is left open" never claims that everything was resolved while some
    deficiency is not."""
    if reason == NO_OPEN_DEFICIENCIES and c.residual:
        return "No deficiency is left open for a correction; the ones not resolved are disclosed."
    return describe(reason, c.found)


def _unfinished_badge(status: SessionStatus, c: OutcomeCounts) -> str:
    if status == SessionStatus.awaiting_review:
        asked = [plural(c.pending, "proposal")] if c.pending else []
        if c.awaiting_confirmation:
            asked.append(plural(c.awaiting_confirmation, "confirmation"))
        return "awaiting review" + (f" ({', '.join(asked)})" if asked else "")
    return status.words


def _unfinished_headline(status: SessionStatus, c: OutcomeCounts) -> str:
    match status:
        case SessionStatus.awaiting_review:
            where = f"Paused after cycle {c.review_cycle}" if c.review_cycle is not None else "Paused"
            text = f"{where}."
            if c.pending:
                asks = plural(c.pending, "proposed correction") + (" waits" if c.pending == 1 else " wait")
                text = f"{where}: {asks} for your decision; nothing is retrieved until you decide."
            if c.awaiting_confirmation:
                text += f" Confirm whether {plural(c.awaiting_confirmation, 'deficiency', 'deficiencies')} you added"
                text += " is resolved." if c.awaiting_confirmation == 1 else " are resolved."
            return text
        case SessionStatus.running:
            return "A run is executing on this session."
        case SessionStatus.interrupted:
            return "The last run was cut off before it paused or finished; it can carry on from its last checkpoint."
        case SessionStatus.failed:
            return "The session failed before its first step: ask the question again."
        case _:
            return "This session holds no loop state yet."
