"""The quality score of an answer: what its problems cost, scaled by how much of the plan it answers."""

from __future__ import annotations

from collections.abc import Iterable

from core.domain.records import Deficiency


def quality_score(found: Iterable[Deficiency], answered: int = 0, planned: int = 0) -> float:
    """1 minus the summed severity weights of the problems found, floored at 0, times the share of plan items the
    answer supports (when there is a plan). A half-answered question therefore scores at most half, whatever
    else is right, and cannot reach the threshold."""
    base = max(0.0, 1.0 - sum(d.severity.weight for d in found))
    if planned:
        base *= answered / planned
    return round(base, 4)


def held_short(score: float, share: tuple[int, int], threshold: float) -> float:
    """The score as reported against the stopping threshold: an answer that leaves an asked plan item unanswered
    scores at most the threshold times the share it answers, so an incomplete answer never meets the threshold,
    however small the item it misses is (one of twelve items unanswered, with one medium problem, had scored 0.87
    against 0.85)."""
    answered, planned = share  # `ResearchPlan.asked_share`
    if planned and answered < planned:
        return min(score, round(threshold * answered / planned, 4))
    return score
