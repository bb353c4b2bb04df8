"""The termination policy: a pure function from the loop's position to a named reason, or None to go on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.config import Settings
from core.domain.records import Deficiency, ResolutionStatus, Severity
from core.domain.stop_reasons import (
    DEGRADED_PREFIX,
    MAX_CYCLES_REACHED,
    NO_OPEN_DEFICIENCIES,
    ONLY_UNRESOLVABLE_REMAINING,
    QUALITY_THRESHOLD_MET,
    SCORE_PLATEAU,
)

_DEFAULTS = Settings.model_fields


@dataclass(frozen=True)
class TerminationPolicy:
    """Thresholds of the policy; see docs/architecture.md, "Termination". The defaults are read from the settings' fields, so a
    policy built without settings stops where a default configuration does."""

    quality_threshold: float = _DEFAULTS["quality_threshold"].default
    blocking_severity: Severity = _DEFAULTS["blocking_severity"].default
    plateau_epsilon: float = _DEFAULTS["plateau_epsilon"].default
    plateau_cycles: int = _DEFAULTS["plateau_cycles"].default

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
