"""The termination policy: a pure function from the loop's position to a named reason, or None to go on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.domain.records import Deficiency, ResolutionStatus, Severity

if TYPE_CHECKING:
    from core.config import Settings

QUALITY_THRESHOLD_MET = "quality_threshold_met"
NO_OPEN_DEFICIENCIES = "no_open_deficiencies"
SCORE_PLATEAU = "score_plateau"
MAX_CYCLES_REACHED = "max_cycles_reached"
ONLY_UNRESOLVABLE_REMAINING = "only_unresolvable_remaining"
STOPPED_BY_ANALYST = "stopped_by_analyst"
LLM_BUDGET_EXHAUSTED = "llm_budget_exhausted"
STEP_LIMIT = "step_limit"
DEGRADED_PREFIX = "degraded_"

REASON_TEXT: dict[str, str] = {
    QUALITY_THRESHOLD_MET: "The quality score reached the threshold and no open deficiency is at or above the blocking severity.",
    NO_OPEN_DEFICIENCIES: "No deficiency is left open.",
    SCORE_PLATEAU: "The score stopped improving for several cycles, so further corrections were not worth running.",
    MAX_CYCLES_REACHED: "The maximum number of correction cycles was reached.",
    ONLY_UNRESOLVABLE_REMAINING: "Only dismissed or unresolvable deficiencies remain: the analyst dismissed them, or "
    "the loop could not fix them.",
    STOPPED_BY_ANALYST: "The analyst stopped the loop.",
    LLM_BUDGET_EXHAUSTED: "The session's LLM budget (calls or tokens) was used up, so no further cycle was run.",
    STEP_LIMIT: "The run used every graph step its cycle budget allows without reaching a stop condition, so it was "
    "stopped and the answer is given as it stood.",
}
NOTHING_FOUND_TEXT = "No problem was found: the critics raised no deficiency."
ALL_RESOLVED_TEXT = "No deficiency is left open: every problem the critics found was resolved."
REASON_LABEL: dict[str, str] = {
    QUALITY_THRESHOLD_MET: "quality threshold met",
    NO_OPEN_DEFICIENCIES: "no open deficiencies",
    SCORE_PLATEAU: "score plateau",
    MAX_CYCLES_REACHED: "maximum cycles reached",
    ONLY_UNRESOLVABLE_REMAINING: "only dismissed or unresolvable deficiencies remain",
    STOPPED_BY_ANALYST: "stopped by the analyst",
    LLM_BUDGET_EXHAUSTED: "LLM budget used up",
    STEP_LIMIT: "step limit reached",
}
"""The same reasons in a few words, for badges, status lines and progress lines (one vocabulary with REASON_TEXT)."""
REASON_CODES: frozenset[str] = frozenset(REASON_LABEL)


def describe(reason: str | None, found: int | None = None) -> str:
    """A sentence for a reason, for the UI and exports; `found` (deficiencies the critics raised in the session,
    when known) tells "nothing was found" from "everything found was resolved" (without it, neither is claimed)."""
    if reason is None:
        return "The loop has not finished."
    if reason.startswith(DEGRADED_PREFIX):
        component = reason[len(DEGRADED_PREFIX) :]
        return f"A component failed ({component}); the loop stopped and the answer is given as it stood."
    if reason == NO_OPEN_DEFICIENCIES and found is not None:
        return ALL_RESOLVED_TEXT if found else NOTHING_FOUND_TEXT
    return REASON_TEXT.get(reason, reason)


def reason_label(reason: str | None) -> str:
    """A reason in a few words (the code with spaces for a reason this module does not name)."""
    if reason is None:
        return "not finished"
    if reason.startswith(DEGRADED_PREFIX):
        return f"a component failed ({reason[len(DEGRADED_PREFIX) :]})"
    return REASON_LABEL.get(reason, reason.replace("_", " "))


@dataclass(frozen=True)
class TerminationPolicy:
    """Thresholds of the policy; see README "Termination". The defaults are the settings' defaults (a test keeps
    them equal), so a policy built without settings stops where a default configuration does."""

    quality_threshold: float = 0.85
    blocking_severity: Severity = Severity.medium
    plateau_epsilon: float = 0.01
    plateau_cycles: int = 2

    @classmethod
    def from_settings(cls, settings: Settings) -> TerminationPolicy:
        """The policy a configuration asks for."""
        return cls(
            quality_threshold=settings.quality_threshold,
            blocking_severity=Severity(settings.blocking_severity),
            plateau_epsilon=settings.plateau_epsilon,
            plateau_cycles=settings.plateau_cycles,
        )


def decide(
    *,
    deficiencies: Iterable[Deficiency],
    score: float,
    cycle: int,
    max_cycles: int,
    plateau_streak: int,
    policy: TerminationPolicy,
    degraded: str | None = None,
) -> str | None:
    """Why the loop stops after this critique, or None. Checked in order of what matters most to report (the
    analyst's stop is decided at the review, and the LLM budget and the step limit outside the policy)."""
    if degraded:
        return f"{DEGRADED_PREFIX}{degraded}"
    items = list(deficiencies)
    open_items = [d for d in items if d.resolution_status == ResolutionStatus.open]
    if not open_items:
        stuck = [d for d in items if d.resolution_status in (ResolutionStatus.unresolvable, ResolutionStatus.dismissed)]
        return ONLY_UNRESOLVABLE_REMAINING if stuck else NO_OPEN_DEFICIENCIES
    blocking = [d for d in open_items if d.severity.rank >= policy.blocking_severity.rank]
    if score >= policy.quality_threshold and not blocking:
        return QUALITY_THRESHOLD_MET
    if cycle >= max_cycles:
        return MAX_CYCLES_REACHED
    if plateau_streak >= policy.plateau_cycles:
        return SCORE_PLATEAU
    return None


def next_plateau_streak(previous_score: float | None, score: float, streak: int, epsilon: float) -> int:
    """Consecutive cycles whose improvement stayed below epsilon."""
    if previous_score is None:
        return 0
    return streak + 1 if score - previous_score < epsilon else 0
