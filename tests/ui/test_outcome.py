"""How an outcome reads: the badge by worst residual, the answer's inline markers, the stop reasons."""

from __future__ import annotations

import pytest

from core.domain.records import Deficiency, DeficiencyType, ResolutionStatus, Severity
from core.domain.results import progress_event
from core.domain.stop_reasons import NO_OPEN_DEFICIENCIES, ONLY_UNRESOLVABLE_REMAINING, describe
from tests.inert import live_markup
from ui.frames import answer_markdown, label
from ui.live import event_line
from ui.outcome import badge_markdown, flag_answer, outcome_badge

S = ResolutionStatus


def residual(severity: Severity, status: S = S.unresolvable, affected: str = "", subject: str = "EU") -> Deficiency:
    return Deficiency(
        deficiency_type=DeficiencyType.missing_jurisdiction,
        subject=subject,
        description=f"{subject} claim is unsupported",
        affected_text=affected,
        severity=severity,
        resolution_status=status,
    )


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        ([], ("green", "completed")),
        ([Severity.low], ("green", "completed")),
        ([(Severity.critical, S.dismissed)], ("green", "completed")),
        ([Severity.critical, Severity.critical], ("red", "completed with 2 critical residuals")),
        ([Severity.critical, Severity.high, Severity.low], ("red", "completed with 1 critical and 1 high residuals")),
        ([Severity.high], ("orange", "completed with 1 high residual")),
        ([Severity.medium, Severity.low], ("orange", "completed with 1 medium residual")),
    ],
)
def test_a_finished_badge_takes_the_colour_of_the_worst_residual(found: list, expected: tuple[str, str]) -> None:
    items = [residual(*f) if isinstance(f, tuple) else residual(f, subject=str(i)) for i, f in enumerate(found)]
    assert outcome_badge("completed", items) == expected
    assert badge_markdown("completed", items) == f":{expected[0]}-badge[{expected[1]}]"


def test_an_unfinished_badge_says_where_the_session_stands() -> None:
    assert outcome_badge("awaiting_review", [residual(Severity.critical)]) == ("orange", "awaiting review")
    assert outcome_badge("interrupted", []) == ("red", "interrupted")


def test_flagged_sentences_carry_an_inert_marker() -> None:
    answer = "# EU\nThe threshold is 25% [sic]. Other text stays.\nUS: identify owners at 25%."
    rendered = answer_markdown(answer)
    items = [
        residual(Severity.high, affected="threshold is 25% [sic]"),
        residual(Severity.medium, affected="identify   owners", subject="US"),
        residual(Severity.high, S.dismissed, affected="Other text", subject="dismissed"),
        residual(Severity.high, affected="not in the answer", subject="absent"),
    ]
    flagged = flag_answer(rendered, items)
    first, second = items[0].id, items[1].id
    assert f"25% \\[sic\\]. ⚠ \\[{first}\\] Other text stays." in flagged
    assert flagged.endswith(f"owners at 25%. ⚠ \\[{second}\\]")
    assert flagged.count("⚠") == 2 and live_markup(flagged) == live_markup(rendered)
    assert flag_answer(rendered, []) == rendered


def test_a_flag_without_sentence_end_goes_at_the_end_of_its_line() -> None:
    rendered = answer_markdown("A claim without a full stop\nNext line.")
    d = residual(Severity.critical, affected="without a full")
    assert flag_answer(rendered, [d]) == f"A claim without a full stop ⚠ \\[{d.id}\\]\n\nNext line."


def test_one_vocabulary_for_stop_reasons() -> None:
    assert label(ONLY_UNRESOLVABLE_REMAINING) == "only dismissed or unresolvable deficiencies remain"
    assert "dismissed" in describe(ONLY_UNRESOLVABLE_REMAINING)
    assert label("missing_jurisdiction") == "missing jurisdiction" and label("awaiting_review") == "awaiting review"
    assert describe(NO_OPEN_DEFICIENCIES, 0).startswith("No problem was found")
    assert "every problem the critics found was resolved" in describe(NO_OPEN_DEFICIENCIES, 3)
    assert describe(NO_OPEN_DEFICIENCIES) == "No deficiency is left open."  # the session list does not know


def test_progress_lines_use_the_same_words() -> None:
    done = progress_event("finalize", {"evaluation_termination_reason": ONLY_UNRESOLVABLE_REMAINING})
    assert event_line(done) == "**Finalize**: stopped\\: only dismissed or unresolvable deficiencies remain"
    assert event_line(progress_event("correct", {"evidence": [1, 2]})) == "**Correction retrieval**: found 2 passages"
    assert event_line(progress_event("plan", {})).startswith("**Plan**: ")
