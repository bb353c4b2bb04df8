"""How an outcome reads: the one outcome function (counts, badge, headline), the palette, the answer's inline
markers, the stop reasons."""

from __future__ import annotations

import pytest

from core.domain.outcome import SEVERITY_COLORS, Outcome, OutcomeCounts, SessionStatus, count, outcome
from core.domain.records import Deficiency, DeficiencyType, EvaluationCycleRecord, ResolutionStatus, Severity
from core.domain.results import progress_event
from core.domain.stop_reasons import MAX_CYCLES_REACHED, NO_OPEN_DEFICIENCIES, ONLY_UNRESOLVABLE_REMAINING, describe
from tests.inert import live_markup
from ui.frames import answer_markdown, label, severity_badge
from ui.live import event_line
from ui.outcome import flag_answer

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


def outcome_of(found: list, *, blocking: Severity | None = Severity.medium, status: str = "completed") -> Outcome:
    items = [residual(*f) if isinstance(f, tuple) else residual(f, subject=str(i)) for i, f in enumerate(found)]
    return outcome(status, MAX_CYCLES_REACHED, count(items, items, [], blocking=blocking))


def cycle_record(n: int, score: float) -> EvaluationCycleRecord:
    return EvaluationCycleRecord(
        cycle_number=n,
        timestamp="2026-01-01T00:00:00+00:00",
        deficiencies_found=(),
        deficiencies_resolved=(),
        overall_score=score,
    )


@pytest.mark.parametrize(
    ("found", "blocking", "expected"),
    [
        ([Severity.low], Severity.medium, ("orange", "completed with 1 residual (1 low)")),
        ([(Severity.critical, S.dismissed)], Severity.medium, ("green", "completed with 1 residual (1 dismissed)")),
        ([Severity.critical, Severity.critical], Severity.high, ("red", "completed with 2 residuals (2 critical)")),
        (
            [Severity.critical, Severity.high, Severity.low],
            Severity.critical,
            ("red", "completed with 3 residuals (1 critical, 1 high, 1 low)"),
        ),
        ([Severity.high], Severity.critical, ("orange", "completed with 1 residual (1 high)")),
        ([Severity.medium, Severity.low], Severity.medium, ("red", "completed with 2 residuals (1 medium, 1 low)")),
        ([Severity.medium], None, ("orange", "completed with 1 residual (1 medium)")),
    ],
)
def test_a_finished_badge_counts_every_residual_and_follows_the_blocking_severity(
    found: list, blocking: Severity | None, expected: tuple[str, str]
) -> None:
    result = outcome_of(found, blocking=blocking)
    assert (result.color, result.badge) == expected
    assert result.badge_markdown() == f":{expected[0]}-badge[{expected[1]}]"
    assert result.counts.residual == len(found)  # the badge's number is the box's number


def test_nothing_found_and_everything_resolved_read_differently() -> None:
    nothing = outcome("completed", NO_OPEN_DEFICIENCIES, count([], [], []))
    assert (nothing.color, nothing.badge) == ("green", "completed")
    assert nothing.headline.startswith("No problem was found") and nothing.reason.startswith("No problem was found")
    fixed = residual(Severity.high, S.resolved)
    resolved = outcome("completed", NO_OPEN_DEFICIENCIES, count([fixed], [], []))
    assert resolved.headline == "The one deficiency found was resolved."
    assert "every problem the critics found was resolved" in resolved.reason


def test_a_session_whose_corrections_never_helped_says_so() -> None:
    stuck = [residual(Severity.medium, S.unresolvable, subject=str(i)) for i in range(3)]
    history = [cycle_record(n, 0.46) for n in range(3)]
    result = outcome("completed", MAX_CYCLES_REACHED, count(stuck, stuck, history, epsilon=0.01))
    assert result.badge == "stopped: no correction helped"
    assert result.headline == (
        "No correction helped: the score stayed at 0.46 over 3 cycles and none of the 3 deficiencies found was "
        "resolved."
    )
    rising = [cycle_record(0, 0.46), cycle_record(1, 0.6)]
    assert outcome("completed", MAX_CYCLES_REACHED, count(stuck, stuck, rising)).badge.startswith("completed with")


def test_an_unfinished_badge_says_where_the_session_stands() -> None:
    paused = outcome_of([Severity.critical], status="awaiting_review")
    assert (paused.color, paused.status) == ("orange", SessionStatus.awaiting_review)
    assert outcome("interrupted", None, OutcomeCounts()).badge == "interrupted"
    assert outcome("interrupted", None, OutcomeCounts()).color == "red"


def test_one_severity_palette() -> None:
    assert set(SEVERITY_COLORS) == set(Severity) and len(set(SEVERITY_COLORS.values())) == len(Severity)
    for severity, color in SEVERITY_COLORS.items():
        assert severity_badge(severity.value) == f":{color}-badge[{severity.value}]"


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


def test_the_items_the_corpus_could_not_answer_stay_a_list_of_inert_items() -> None:
    """The answer's `- ` lines are list items on the page (they showed as paragraphs starting with a dash)."""
    rendered = answer_markdown("## Not answered by the corpus\n- No source on [the](http://x.io) CA deadline.\n- - *x*")
    assert rendered == (
        "#### Not answered by the corpus\n\n- No source on \\[the\\](http\\:\u2060//x.io) CA deadline.\n- \\- \\*x\\*"
    )
    assert live_markup(rendered) == []


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
