"""The pages' plain-data rules: board edits into a review payload, annotations, tables, escaping, settings."""

from __future__ import annotations

import re
from datetime import date

import pytest

from core.domain.records import Deficiency, DeficiencyType, EvaluationCycleRecord, ResolutionStatus, Severity
from core.domain.safe_markdown import md_escape
from core.service import SessionSummary
from tests.inert import live_markup, unescape
from ui.board import (
    DECISIONS,
    BoardChanges,
    annotation_changes,
    board_counts,
    board_frame,
    board_rows,
    paused_changes,
    review_payload,
    undecided_line,
)
from ui.cards import card_decision
from ui.frames import cycle_frame, frame_records, needs_metadata, session_frame, upload_defaults

S = ResolutionStatus


def make(subject: str, status: S = S.open, severity: Severity = Severity.medium, **kw: object) -> Deficiency:
    return Deficiency(
        deficiency_type=kw.pop("deficiency_type", DeficiencyType.missing_jurisdiction),
        subject=subject,
        description=f"{subject} is missing",
        suggested_correction_query=f"{subject} rules",
        resolution_status=status,
        severity=severity,
        **kw,
    )


@pytest.fixture
def deficiencies() -> list[Deficiency]:
    return [make("EU"), make("US", severity=Severity.high), make("UK", S.resolved), make("SG", S.unresolvable)]


def rows_of(deficiencies: list[Deficiency]) -> list[dict]:
    """What an untouched board gives back (through a DataFrame, like the editor)."""
    return frame_records(board_frame(board_rows(deficiencies)))


def row(rows: list[dict], subject: str) -> dict:
    return next(r for r in rows if r["subject"] == subject)


def test_untouched_board_changes_nothing(deficiencies: list[Deficiency]) -> None:
    changes = paused_changes(deficiencies, rows_of(deficiencies), [deficiencies[0].id, deficiencies[1].id])
    assert not changes and changes.problems == []


def test_board_edits_become_decisions(deficiencies: list[Deficiency]) -> None:
    eu, us, _, sg = deficiencies
    rows = rows_of(deficiencies)
    row(rows, "EU")["status"] = "dismissed"
    row(rows, "US").update(
        {"decision": "approve", "severity": "critical", "correction query": "FinCEN CDD rule 31 CFR 1010.230"}
    )
    row(rows, "SG")["severity"] = "low"
    changes = paused_changes(deficiencies, rows, [eu.id, us.id])
    assert changes.decisions[eu.id] == {"action": "reject", "note": "dismissed on the board"}
    assert changes.decisions[us.id] == {
        "action": "edit",
        "query": "FinCEN CDD rule 31 CFR 1010.230",
        "severity": "critical",
    }
    assert changes.decisions[sg.id] == {"action": "approve", "severity": "low"}
    assert changes.problems == []


def test_a_proposal_needs_an_explicit_decision_on_the_board(deficiencies: list[Deficiency]) -> None:
    eu, us, uk, sg = deficiencies
    rows = rows_of(deficiencies)
    row(rows, "EU")["severity"] = "critical"  # an edit is not a decision
    row(rows, "SG")["decision"] = "dismissed"
    row(rows, "UK")["decision"] = "approve"  # not a proposal of this review
    changes = paused_changes(deficiencies, rows, [eu.id, us.id])
    assert changes.undecided == {eu.id: {"severity": "critical"}, us.id: {}}
    assert changes.summary() == [
        f"{sg.id}: dismiss; note: dismissed on the board",
        f"{eu.id}: severity → critical (no decision yet)",
    ]
    payload = review_payload([{"id": eu.id}, {"id": us.id}], {eu.id: {"action": "approve"}}, changes, "ana", cycle=0)
    assert payload["decisions"][eu.id] == {"action": "approve", "severity": "critical"}  # the card decides
    assert changes.decisions == {sg.id: {"action": "reject", "note": "dismissed on the board"}}
    assert changes.problems == [f"{uk.id}: only this review's proposals can be approved; the decision is ignored"]
    row(rows, "EU")["decision"] = "approve"
    row(rows, "US")["decision"] = "dismissed"
    changes = paused_changes(deficiencies, rows, [eu.id, us.id])
    assert changes.undecided == {}
    assert changes.decisions[eu.id] == {"action": "approve", "severity": "critical"}
    assert changes.decisions[us.id]["action"] == "reject"


def test_the_decision_column_offers_only_analyst_moves() -> None:
    assert DECISIONS == ("approve", "dismissed", "resolved", "open")  # resolved / open: confirming an added one
    loop_only = {S.addressed.value, S.unresolvable.value}
    assert not loop_only & set(DECISIONS)


def test_board_counts_include_the_staged_edits(deficiencies: list[Deficiency]) -> None:
    eu, us, _, _ = deficiencies
    rows = rows_of(deficiencies)
    row(rows, "EU")["decision"] = "dismissed"
    changes = paused_changes(deficiencies, rows, [eu.id, us.id])
    changes.added.append({"deficiency_type": "missing_jurisdiction", "subject": "JP"})
    counts = board_counts(rows, changes)
    assert counts == {"open": 2, "addressed": 0, "resolved": 1, "unresolvable": 1, "dismissed": 1}


def test_undecided_line() -> None:
    assert undecided_line(3, 5, "cards") == "3 of 5 cards undecided"
    assert undecided_line(0, 5, "cards") == "All 5 cards decided."


def test_board_refuses_what_the_loop_owns(deficiencies: list[Deficiency]) -> None:
    eu, us, uk, sg = deficiencies
    rows = rows_of(deficiencies)
    row(rows, "EU")["status"] = "resolved"
    row(rows, "US")["description"] = "reworded"
    row(rows, "UK")["severity"] = "critical"
    row(rows, "SG")["correction query"] = "MAS notice"
    changes = paused_changes(deficiencies, rows, [eu.id, us.id])
    assert not changes
    assert sorted(p.split(":")[0] for p in changes.problems) == sorted([eu.id, us.id, uk.id, sg.id])


def test_board_leaves_policy_decided_deficiencies_alone(deficiencies: list[Deficiency]) -> None:
    eu, us, _, _ = deficiencies
    rows = rows_of(deficiencies)
    row(rows, "EU")["status"] = "dismissed"  # open but not proposed: the approval policy decided it
    changes = paused_changes(deficiencies, rows, [us.id])
    assert not changes and changes.problems == [
        f"{eu.id}: decided by the approval policy in this review; the change is ignored"
    ]


def test_added_rows_need_type_subject_section_description_and_query(deficiencies: list[Deficiency]) -> None:
    rows = rows_of(deficiencies)
    blank = dict.fromkeys(rows[0])
    rows.append(
        {
            **blank,
            "type": "missing_jurisdiction",
            "subject": "SG",
            "section": "SG",
            "description": "Singapore not covered",
            "correction query": "MAS PSN01 customer due diligence",
            "severity": "high",
            "note": "client asks",
        }
    )
    rows.append({**blank, "type": "missing_exemption", "subject": "EU"})
    rows.append(dict(blank))
    changes = paused_changes(deficiencies, rows, [])
    assert changes.added == [
        {
            "deficiency_type": "missing_jurisdiction",
            "subject": "SG",
            "affected_section": "SG",
            "description": "Singapore not covered",
            "suggested_correction_query": "MAS PSN01 customer due diligence",
            "severity": "high",
            "note": "client asks",
        }
    ]
    assert len(changes.problems) == 1 and "section, description, correction query" in changes.problems[0]


def test_review_payload_merges_cards_and_board(deficiencies: list[Deficiency]) -> None:
    eu, us, _, sg = deficiencies
    proposals = [{"id": eu.id, "query": "EU rules"}, {"id": us.id, "query": "US rules"}]
    board = BoardChanges(
        decisions={
            eu.id: {"action": "reject", "note": "out of scope"},
            us.id: {"action": "approve", "severity": "critical"},
            sg.id: {"action": "approve", "severity": "low"},
        },
        added=[{"deficiency_type": "missing_jurisdiction", "subject": "SG"}],
    )
    cards = {eu.id: {"action": "approve", "note": ""}, us.id: {"action": "edit", "query": "FinCEN", "note": ""}}
    payload = review_payload(proposals, cards, board, "ana", cycle=2)
    assert payload["decisions"] == {
        eu.id: {"action": "reject", "note": "out of scope"},
        us.id: {"action": "edit", "query": "FinCEN", "note": "", "severity": "critical"},
        sg.id: {"action": "approve", "severity": "low"},
    }
    assert payload["added"] == board.added and payload["reviewer"] == "ana" and payload["stop"] is False
    assert payload["cycle"] == 2  # the review it answers: the service refuses it for any other


@pytest.mark.parametrize(
    ("action", "query", "note", "expected", "error"),
    [
        (None, "EU rules", "", None, "choose approve, edit query or reject"),
        ("approve", "EU rules", "", {"action": "approve", "note": ""}, None),
        ("approve", "EU AMLR rules", "", {"action": "edit", "query": "EU AMLR rules", "note": ""}, None),
        ("edit", " ", "", None, "empty"),
        ("reject", "EU rules", "", None, "say why"),
        ("reject", "EU rules", "covered elsewhere", {"action": "reject", "note": "covered elsewhere"}, None),
    ],
)
def test_card_decision(action: str | None, query: str, note: str, expected: dict | None, error: str | None) -> None:
    decision, problem = card_decision({"id": "D-1", "query": "EU rules"}, action, query, note)
    assert decision == expected
    assert (problem is None) if error is None else (error in problem)


def test_annotation_changes(deficiencies: list[Deficiency]) -> None:
    rows = rows_of(deficiencies)
    row(rows, "SG").update({"note": "checked with counsel", "accepted risk": True})
    row(rows, "US")["severity"] = "low"
    assert annotation_changes(deficiencies, rows) == [
        {"id": deficiencies[1].id, "severity": "low"},
        {"id": deficiencies[3].id, "note": "checked with counsel", "accepted_risk": True},
    ]


def test_board_lists_open_and_severe_first(deficiencies: list[Deficiency]) -> None:
    assert [r["subject"] for r in board_rows(deficiencies)] == ["US", "EU", "SG", "UK"]


def test_md_escape_makes_markup_inert() -> None:
    text = "<script>x</script> [link](http://evil) **bold** :red[alert] $x$ # head\n# line\n1. item\n- item"
    escaped = md_escape(text)
    assert live_markup(escaped) == [] and re.search(r"(?<!\\)[<>\[\]*:$]", escaped) is None
    assert [line[:2] for line in escaped.split("  \n")[1:]] == ["\\#", "1\\", "\\-"]  # no heading or list
    assert unescape(escaped) == text.replace("\n", "  \n")  # line breaks become hard breaks
    assert md_escape("D-2100bc79eb, EUR 10,000 (art. 3)") == "D-2100bc79eb, EUR 10,000 (art. 3)"  # readable


def test_cycle_table() -> None:
    records = [
        EvaluationCycleRecord(
            cycle_number=i,
            timestamp="2026-11-30T10:00:00+00:00",
            deficiencies_found=("D-1",) * (2 - i),
            deficiencies_resolved=(),
            overall_score=0.7 + 0.1 * i,
            status_counts={"open": 2 - i},
            answer=f"line one\nfigure {i}",
        )
        for i in range(3)
    ]
    table = cycle_frame(records, {0: {"plan": 0.5, "critique": 0.25}, 2: {"critique": 0.125}})
    assert list(table["cycle"]) == [0, 1, 2] and list(table["open"]) == [2, 1, 0]
    assert list(table["seconds"]) == [0.75, 0, 0.125]  # per cycle, not running totals


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("a.md", b"---\nid: a\n---\ntext", False),
        ("a.md", b"# Title\ntext", True),
        ("a.txt", b"text", True),
        ("a.pdf", b"%PDF", True),
        ("a.jsonl", b'{"id": 1}', False),
        ("b.md", b"\xef\xbb\xbf---\nid: b", False),
    ],
)
def test_needs_metadata(name: str, content: bytes, expected: bool) -> None:
    assert needs_metadata(name, content) is expected


def test_upload_defaults_keep_only_what_was_filled() -> None:
    row = {"jurisdiction": " EU ", "title": "", "status": "in_force", "effective": date(2027, 7, 10)}
    assert upload_defaults(row) == {"jurisdiction": "EU", "status": "in_force", "effective": "2027-07-10"}


def test_the_session_table_shows_the_status_and_why_the_loop_stopped() -> None:
    """The status comes from the service as it is (running or cut off is decided there, from heartbeats)."""
    done = SessionSummary(
        thread_id="t1",
        question="q",
        status="completed",
        created_at="x",
        updated_at="x",
        termination_reason="max_cycles_reached",
        termination_text="Stopped after the maximum.",
    )
    running = SessionSummary(thread_id="t2", question="q", status="running", created_at="x", updated_at="x")
    frame = session_frame([done, running])
    assert list(frame["status"]) == ["completed", "running"]
    assert list(frame["termination"]) == [
        "The maximum number of correction cycles was reached.",
        "A run is executing on this session.",
    ]
