"""The termination policy as a pure function."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.domain.quality import quality_score
from core.domain.records import Deficiency, DeficiencyType, ResolutionStatus, Severity
from core.domain.stop_reasons import (
    MAX_CYCLES_REACHED,
    NO_OPEN_DEFICIENCIES,
    ONLY_UNRESOLVABLE_REMAINING,
    QUALITY_THRESHOLD_MET,
    SCORE_PLATEAU,
    STEP_LIMIT,
    describe,
)
from core.loop.termination import TerminationPolicy, decide, next_plateau_streak

POLICY = TerminationPolicy(
    quality_threshold=0.85, blocking_severity=Severity.medium, plateau_epsilon=0.01, plateau_cycles=2
)


def d(status: str = "open", severity: str = "high", subject: str = "EU") -> Deficiency:
    return Deficiency(
        deficiency_type=DeficiencyType.missing_jurisdiction,
        subject=subject,
        description="x",
        resolution_status=ResolutionStatus(status),
        severity=Severity(severity),
    )


@pytest.mark.parametrize(
    ("items", "score", "cycle", "plateau", "kw", "expected"),
    [
        ([d()], 0.5, 0, 0, {"degraded": "llm"}, "degraded_llm"),
        ([], 1.0, 0, 0, {}, NO_OPEN_DEFICIENCIES),
        ([d("resolved")], 1.0, 1, 0, {}, NO_OPEN_DEFICIENCIES),
        ([d("dismissed"), d("unresolvable", subject="US")], 0.7, 1, 0, {}, ONLY_UNRESOLVABLE_REMAINING),
        ([d(severity="low")], 0.98, 0, 0, {}, QUALITY_THRESHOLD_MET),
        ([d(severity="medium")], 0.95, 0, 0, {}, None),
        ([d()], 0.5, 3, 0, {}, MAX_CYCLES_REACHED),
        ([d()], 0.5, 2, 2, {}, SCORE_PLATEAU),
        ([d()], 0.5, 1, 1, {}, None),
    ],
)
def test_decide(
    items: list[Deficiency], score: float, cycle: int, plateau: int, kw: dict, expected: str | None
) -> None:
    assert (
        decide(deficiencies=items, score=score, cycle=cycle, max_cycles=3, plateau_streak=plateau, policy=POLICY, **kw)
        == expected
    )


def test_zero_max_cycles_stops_after_first_critique() -> None:
    assert (
        decide(deficiencies=[d()], score=0.1, cycle=0, max_cycles=0, plateau_streak=0, policy=POLICY)
        == MAX_CYCLES_REACHED
    )


def test_plateau_streak_and_score_formula() -> None:
    assert next_plateau_streak(None, 0.5, 0, 0.01) == 0
    assert next_plateau_streak(0.5, 0.505, 0, 0.01) == 1
    assert next_plateau_streak(0.5, 0.6, 3, 0.01) == 0
    assert quality_score([d(severity="critical"), d(severity="low", subject="US")]) == pytest.approx(0.78)
    assert quality_score([d(severity="critical", subject=str(i)) for i in range(9)]) == 0.0
    assert "not finished" in describe(None) and "component failed" in describe("degraded_critic")
    assert describe(STEP_LIMIT) != STEP_LIMIT and "step" in describe(STEP_LIMIT)


def test_the_policy_defaults_are_the_settings_defaults() -> None:
    defaults = {
        name: Settings.model_fields[name].default
        for name in ("quality_threshold", "blocking_severity", "plateau_epsilon", "plateau_cycles")
    }
    policy = TerminationPolicy()
    assert policy.blocking_severity == Severity.medium
    assert {name: getattr(policy, name) for name in defaults} == {
        **defaults,
        "blocking_severity": Severity(defaults["blocking_severity"]),
    }
    assert TerminationPolicy.from_settings(Settings()) == policy


def test_unanswered_plan_items_scale_the_score_down() -> None:
    assert quality_score([], answered=3, planned=6) == 0.5
    assert quality_score([d(severity="low")], answered=9, planned=10) == pytest.approx(0.882)
    assert quality_score([], answered=0, planned=4) == 0.0
