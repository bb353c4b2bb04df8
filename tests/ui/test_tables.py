"""Provenance and history in tables: the corpus list's flags, verification and source, search-hit badges, review
decisions in words and session labels that tell a branch from its parent."""

from __future__ import annotations

from datetime import UTC, datetime

from core.domain.documents import DocStatus, DocumentMeta, Provenance
from core.domain.records import DecisionRecord, Deficiency, DeficiencyType, EvaluationCycleRecord
from core.service import SessionSummary
from ui.tables import decision_frame, decision_words, document_flags, document_frame, hit_heading, session_choice

UPLOAD = Provenance(kind="upload", actor="ana", source="upload:memo.md")
VERIFIED = Provenance(
    kind="upload",
    actor="ana",
    source="upload:memo.md",
    verified=True,
    verified_by="bob",
    verified_at=datetime(2026, 11, 30, 9, tzinfo=UTC),
)


def test_flags_name_a_status_to_beware_of_and_an_unverified_upload() -> None:
    assert document_flags("in_force", Provenance(kind="bundled", verified=True)) == []
    assert document_flags("erroneous", UPLOAD) == ["erroneous", "unverified"]
    assert document_flags("superseded", VERIFIED) == ["superseded"]
    assert document_flags("proposed", Provenance(kind="path", verified=True)) == ["proposed"]
    instructed = Provenance(kind="path", verified=True, instructed=("xy-act#1",))
    assert document_flags("in_force", instructed) == ["instructions"]


def test_the_document_table_shows_provenance() -> None:
    docs = [
        DocumentMeta(id="blog", title="A blog note", jurisdiction="EU", status=DocStatus.erroneous, provenance=UPLOAD),
        DocumentMeta(id="amlr", title="AMLR", jurisdiction="EU", provenance=Provenance(kind="bundled", verified=True)),
        DocumentMeta(id="memo", title="Memo", jurisdiction="UK", provenance=VERIFIED),
    ]
    table = document_frame(docs, {"amlr": "superseded"})
    assert list(table.columns[:6]) == ["id", "title", "flags", "status today", "verified", "source"]
    assert list(table["flags"]) == [["erroneous", "unverified"], ["superseded"], []]
    assert list(table["verified"]) == ["no", "yes", "yes, by bob on 2026-11-30"]
    assert list(table["source"]) == [
        "upload by ana (upload:memo.md)",
        "bundled sample",
        "upload by ana (upload:memo.md)",
    ]
    assert list(table["status today"]) == ["erroneous", "superseded", "in force"]


def test_a_search_hit_carries_badges_with_its_title_escaped() -> None:
    assert hit_heading("Blog *note*", "erroneous", UPLOAD) == (
        r"**Blog \*note\***" + " :red-badge[erroneous] :orange-badge[unverified]"
    )
    assert hit_heading("AMLR", "in_force", Provenance(kind="bundled", verified=True)) == "**AMLR**"
    assert hit_heading("Old", "superseded", None) == "**Old** :gray-badge[superseded]"


def records() -> list[EvaluationCycleRecord]:
    decisions = (
        DecisionRecord(deficiency_id="D-1", action="approve", decided_by="ana"),
        DecisionRecord(deficiency_id="D-2", action="reject", note="out of scope", decided_by="ana"),
        DecisionRecord(deficiency_id="D-3", action="approve", decided_by="policy", automatic=True),
    )
    return [
        EvaluationCycleRecord(
            cycle_number=0,
            timestamp="2026-11-30T10:00:00+00:00",
            deficiencies_found=(),
            deficiencies_resolved=(),
            overall_score=0.5,
            decisions=decisions,
        )
    ]


def test_decisions_read_as_words() -> None:
    (record,) = records()
    assert decision_words(record.decisions) == "2 approved, 1 rejected (1 by the approval policy)"
    assert decision_words(()) == "none"
    named = Deficiency(id="D-2", deficiency_type=DeficiencyType.missing_jurisdiction, subject="SG", description="x")
    table = decision_frame(records(), [named])
    assert list(table["decision"]) == ["approved", "rejected", "approved"]
    assert list(table["deficiency"]) == ["D-1", "missing jurisdiction: SG", "D-3"]
    assert list(table["by"]) == ["ana", "ana", "approval policy"]


def test_a_branch_reads_apart_from_its_parent() -> None:
    question = "Compare the beneficial ownership thresholds of two regimes in a long question " * 2
    parent = SessionSummary(
        thread_id="p1", question=question, status="completed", created_at="2026-11-30T10:00:00", updated_at="x"
    )
    branch = parent.model_copy(update={"thread_id": "b1", "parent_thread_id": "p1", "branched_from_cycle": 2})
    assert session_choice(parent, "completed") == f"{question} · completed · 2026-11-30 10:00 · p1"
    assert session_choice(branch, "completed").endswith(" · branch of p1 at cycle 2 · b1")
