"""Exports: Markdown, JSON and DOCX carry the answer, residuals with reasons, struck claims, cycles, termination and
audit; Markdown and Word read as a person expects (words for codes, real tables and lists, no stray escapes)."""

from __future__ import annotations

import io
import json
import re
from datetime import date
from typing import Any

import pytest
from docx import Document

from core.config import Settings
from core.domain.answer import (
    STRUCK_GAP_HEADING,
    Answer,
    AnswerSection,
    Claim,
    Gap,
    Quote,
    claim_id,
    render_markdown,
    strike,
)
from core.domain.audit import added_act, annotation_acts, sealed_acts, verify_chain
from core.domain.documents import DocStatus
from core.domain.outcome import SessionStatus
from core.domain.plan import Aspect, PlanItem, PlannedJurisdiction, ResearchPlan
from core.domain.records import (
    Citation,
    DecisionRecord,
    Deficiency,
    DeficiencyType,
    EvaluationCycleRecord,
    ResolutionStatus,
    Severity,
)
from core.domain.safe_markdown import md_file_escape
from core.domain.stop_reasons import REASON_CODES
from core.export import NO_RESIDUALS, NOTHING_FOUND, RESIDUAL_HEADING, render
from core.service import RunResult
from tests.inert import HOSTILE, live_markup, unescape

ANSWER = "## EU\nThe reporting threshold is EUR 10,000 [eu-amld6].\n\n## UK\nSee [uk-mlr-2017]."


def _deficiency(subject: str, status: ResolutionStatus, **kw: object) -> Deficiency:
    return Deficiency(
        deficiency_type=kw.pop("deficiency_type", DeficiencyType.missing_jurisdiction),
        subject=subject,
        description=kw.pop("description", f"problem with {subject}"),
        resolution_status=status,
        **kw,
    )


DISMISSED = _deficiency(
    "fr", ResolutionStatus.dismissed, analyst_note="out of scope for this client", severity=Severity.low
)
UNRESOLVABLE = _deficiency(
    "threshold:eu",
    ResolutionStatus.unresolvable,
    resolution_attempt_count=2,
    deficiency_type=DeficiencyType.incorrect_threshold,
    severity=Severity.critical,
)
OPEN = _deficiency("de", ResolutionStatus.open, severity=Severity.high)
ANALYST = _deficiency(
    "sanctions screening",
    ResolutionStatus.addressed,
    origin="analyst",
    deficiency_type=DeficiencyType.insufficient_specificity,
)
RESOLVED = _deficiency("uk", ResolutionStatus.resolved)


def _history() -> list[EvaluationCycleRecord]:
    first = EvaluationCycleRecord(
        cycle_number=0,
        timestamp="2024-05-01T10:00:00+00:00",
        deficiencies_found=(OPEN.id, RESOLVED.id),
        deficiencies_resolved=(),
        overall_score=0.83,
        retrieval_queries_issued=("uk money laundering regulations",),
        decisions=(DecisionRecord(deficiency_id=RESOLVED.id, action="approve", decided_by="alice"),),
    ).sealed("")
    second = EvaluationCycleRecord(
        cycle_number=1,
        timestamp="2024-05-01T10:01:00+00:00",
        deficiencies_found=(OPEN.id,),
        deficiencies_resolved=(RESOLVED.id,),
        overall_score=0.88,
    ).sealed(first.record_hash)
    return [first, second]


def _result(**kw: object) -> RunResult:
    base: dict[str, object] = {
        "thread_id": "abc123",
        "status": "completed",
        "question": "What is the AML reporting threshold?",
        "as_of": date(2024, 5, 1),
        "engine": "offline",
        "current_answer": ANSWER,
        "final_answer": ANSWER + "\n\nresidual",
        "quality_score": 0.88,
        "termination_reason": "max_cycles_reached",
        "residual_deficiencies": [DISMISSED, UNRESOLVABLE, OPEN, ANALYST],
        "identified_deficiencies": [DISMISSED, UNRESOLVABLE, OPEN, ANALYST, RESOLVED],
        "evaluation_history": _history(),
        "citations": [
            Citation(
                doc_id="eu-amld6",
                title="EU AMLD 6",
                jurisdiction="EU",
                declared_status="in_force",
                status_at_as_of="in_force",
                effective=date(2021, 6, 3),
                citation="Directive 2018/1673",
            ),
            Citation(
                doc_id="uk-mlr-2017",
                title="UK MLR 2017",
                jurisdiction="UK",
                declared_status="amended",
                status_at_as_of="repealed",
            ),
        ],
        "max_evaluation_cycles": 2,
        "evaluation_cycle": 2,
    }
    base.update(kw)
    return RunResult(**base)


def _export(result: RunResult, fmt: str) -> bytes:
    ok, message = verify_chain(result.audit_records)
    return render(result, fmt, audit_ok=ok, audit_message=message)


def _docx_text(data: bytes) -> tuple[str, list[list[list[str]]]]:
    doc = Document(io.BytesIO(data))
    tables = [[[c.text for c in row.cells] for row in t.rows] for t in doc.tables]
    return "\n".join(p.text for p in doc.paragraphs), tables


def test_markdown_has_answer_citations_residuals_cycles_termination_and_audit() -> None:
    md = unescape(_export(_result(), "md").decode())
    assert "The reporting threshold is EUR 10,000 [eu-amld6]." in md
    assert "### EU" in md  # answer headings sit below the export's own sections
    assert "| eu-amld6 | EU AMLD 6 | EU | Directive 2018/1673 | in force | in force | 2021-06-03 |" in md
    assert "| uk-mlr-2017 | UK MLR 2017 | UK |  | amended | repealed | unknown |" in md
    assert md.index("## Answer") < md.index(f"## {RESIDUAL_HEADING}") < md.index("## Citations")
    assert "dismissed by the analyst (out of scope for this client)" in md
    assert "unresolvable after 2 attempts" in md
    assert "still open when the loop stopped" in md
    assert "waiting for the analyst who added it to confirm it is resolved" in md
    assert RESOLVED.id not in md.split(f"## {RESIDUAL_HEADING}")[1].split("## Citations")[0]
    residual_rows = md.split(f"## {RESIDUAL_HEADING}")[1].split("## Citations")[0]
    assert residual_rows.index("critical") < residual_rows.index("| low |")
    assert "| Cycle | Score | Found | Resolved | Queries issued | Decisions |" in md
    assert f"| 1 | 0.88 | 1 ({OPEN.id}) | 1 ({RESOLVED.id}) | none | none |" in md
    assert f"{RESOLVED.id}: approved by alice" in md
    assert "The maximum number of correction cycles was reached." in md
    assert "Audit chain check: verified. 2 cycle records verified" in md
    assert "PROVISIONAL" not in md


def test_markdown_without_residuals_says_so() -> None:
    md = unescape(_export(_result(residual_deficiencies=[]), "md").decode())
    assert f"## {RESIDUAL_HEADING}\n\n{NO_RESIDUALS}" in md


def test_json_round_trips_and_carries_audit() -> None:
    result = _result()
    data = json.loads(_export(result, "json"))
    assert data["audit"]["verified"] is True and data["audit"]["message"] == "2 cycle records verified"
    assert data["audit"]["chain_head"] == result.evaluation_history[-1].record_hash
    assert data["exported_at"] and data["provisional"] is False
    assert RunResult.model_validate(data) == result
    assert verify_chain(data["evaluation_history"]) == (True, "2 cycle records verified")


def test_docx_opens_and_contains_the_residual_table() -> None:
    text, tables = _docx_text(_export(_result(), "docx"))
    assert RESIDUAL_HEADING in text and "The reporting threshold is EUR 10,000 [eu-amld6]." in text
    residual = next(t for t in tables if t[0][-1] == "Why unresolved")
    assert {row[0] for row in residual[1:]} == {DISMISSED.id, UNRESOLVABLE.id, OPEN.id, ANALYST.id}
    assert any("unresolvable after 2 attempts" in row[-1] for row in residual)
    metadata = {row[0]: row[1] for row in tables[0]}
    assert metadata["Question"] == "What is the AML reporting threshold?"
    assert metadata["As-of date"] == "2024-05-01" and metadata["Quality score"] == "0.88"
    assert metadata["Termination reason"].startswith("The maximum number of correction cycles")
    assert any(t[0][0] == "Document" for t in tables) and any(t[0][0] == "Cycle" for t in tables)
    assert "Audit chain check: verified" in text


def test_docx_without_residuals_says_so() -> None:
    text, tables = _docx_text(_export(_result(residual_deficiencies=[]), "docx"))
    assert NO_RESIDUALS in text and not any(t[0][-1] == "Why unresolved" for t in tables)


def test_tampered_record_shows_failed_audit_everywhere() -> None:
    first, second = _history()
    tampered = _result(evaluation_history=[first.model_copy(update={"overall_score": 0.99}), second])
    md = unescape(_export(tampered, "md").decode())
    assert "Audit chain check: FAILED" in md and "cycle record 0" in md and "tampered" in md
    data = json.loads(_export(tampered, "json"))
    assert data["audit"]["verified"] is False and "cycle record 0" in data["audit"]["message"]
    text, _ = _docx_text(_export(tampered, "docx"))
    assert "Audit chain check: FAILED" in text


def test_untrusted_text_is_escaped_in_markdown() -> None:
    evil = _deficiency(
        "xss", ResolutionStatus.open, description="<script>alert(1)</script> a | b\n## injected [link](javascript:x)"
    )
    answer = "Body <img src=x onerror=alert(1)> text"
    md = _export(_result(residual_deficiencies=[evil], current_answer=answer), "md").decode()
    assert live_markup(md) == []  # no HTML tag, no link
    assert "Body <img src=x onerror=alert(1)> text" in unescape(md)
    row = next(line for line in md.splitlines() if unescape(line).startswith(f"| {evil.id} |"))
    assert "<script>alert(1)</script> a | b ## injected [link](javascript:x)" in unescape(row)
    assert row.count(" | ") == 5  # six cells: the pipe inside the description does not add a column
    assert "\n## injected" not in md and "\n\\#\\# injected" not in md


def test_hostile_corpus_text_is_inert_in_the_markdown_export() -> None:
    """Images, links, autolinks, raw URLs, directives and math from a document quoted in the answer, a
    deficiency and a citation title reach the export as text only."""
    evil = _deficiency("beacon", ResolutionStatus.open, description=HOSTILE)
    citation = Citation(
        doc_id="evil-doc", title=HOSTILE, jurisdiction="EU", declared_status="in_force", status_at_as_of="in_force"
    )
    md = _export(
        _result(
            residual_deficiencies=[evil],
            citations=[citation],
            current_answer=f"## EU\n{HOSTILE} [evil-doc]\n# {HOSTILE}",
        ),
        "md",
    ).decode()
    assert live_markup(md) == []
    assert unescape(md).count("![x](http://evil.example/beacon?leak=1)") == 4
    assert "### EU" in md and "\n### Owners above 25% ![x\\](http" in md  # headings stay headings, escaped


def test_docx_tolerates_control_characters() -> None:
    text, _ = _docx_text(_export(_result(current_answer="bad\x0bchar\x00here"), "docx"))
    assert "bad char here" in text


@pytest.mark.parametrize("fmt", ["pdf", "MD", ""])
def test_unknown_format_raises(fmt: str) -> None:
    with pytest.raises(ValueError, match="unknown export format"):
        render(_result(), fmt, audit_ok=True, audit_message="ok")


@pytest.mark.parametrize("status", ["awaiting_review", "interrupted"])
def test_unfinished_session_is_labelled_provisional(status: str) -> None:
    result = _result(
        status=status, termination_reason=None, quality_score=None, residual_deficiencies=[OPEN], final_answer=""
    )
    md = unescape(_export(result, "md").decode())
    top = md.split("## Answer")[0]
    assert "PROVISIONAL" in top and f"has not finished (status: {status.replace('_', ' ')}" in top
    assert "provisional" in top
    assert "still open: the loop has not finished" in md
    assert "The loop has not finished." in md and "not scored" in md
    assert json.loads(_export(result, "json"))["provisional"] is True
    text, _ = _docx_text(_export(result, "docx"))
    assert text.index("PROVISIONAL") < text.index("Answer")


def test_nothing_from_settings_is_exported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_API_KEY", "sk-secret-value")
    outputs = [_export(_result(), fmt) for fmt in ("md", "json", "docx")]
    assert not any(b"sk-secret-value" in out for out in outputs)


def _annotated() -> RunResult:
    """A result with a post-run annotation (note and accepted risk by bob) chained after the cycle records."""
    history = _history()
    after = OPEN.model_copy(update={"analyst_note": "client-specific", "accepted_risk": True})
    acts = sealed_acts(annotation_acts(OPEN, after, "bob", "immaterial for this client", 1), history[-1].record_hash)
    return _result(evaluation_history=history, human_acts=acts, user_id="bob@example.org")


def test_every_export_lists_the_human_acts_and_the_chain_head() -> None:
    result = _annotated()
    head = result.human_acts[-1].record_hash
    md = unescape(_export(result, "md").decode())
    acts = md.split("## Human acts")[1].split("## Settings at start")[0]
    assert (
        f"| bob | annotation | {OPEN.id} | 1 | note: (empty) -> client-specific | immaterial for this client |" in acts
    )
    assert "accepted risk: false -> true" in acts
    assert "2 cycle records and 2 human acts verified" in md and f"Chain head: {head}" in md
    assert "Verification covers all records: 2 cycle records and 2 human acts in one chain." in md
    data = json.loads(_export(result, "json"))
    assert [a["actor"] for a in data["human_acts"]] == ["bob", "bob"]
    assert data["human_acts"][0]["reason"] == "immaterial for this client"
    assert data["audit"]["chain_head"] == head and data["audit"]["covers"] == {"cycle_records": 2, "human_acts": 2}
    assert verify_chain([*data["evaluation_history"], *data["human_acts"]])[0]
    text, tables = _docx_text(_export(result, "docx"))
    act_table = next(t for t in tables if t[0][0] == "When")
    assert act_table[1][1:] == [
        "bob",
        "annotation",
        OPEN.id,
        "1",
        "note: (empty) -> client-specific",
        "immaterial for this client",
    ]
    assert f"Chain head: {head}" in text


def test_a_tampered_human_act_fails_the_audit_naming_it() -> None:
    result = _annotated()
    forged = result.human_acts[0].model_copy(update={"new": "nothing to see"})
    tampered = result.model_copy(update={"human_acts": [forged, result.human_acts[1]]})
    ok, message = verify_chain(tampered.audit_records)
    assert not ok and f"human act (annotation of {OPEN.id}: note by bob" in message and "tampered" in message
    md = unescape(_export(tampered, "md").decode())
    assert "Audit chain check: FAILED" in md and "human act (annotation" in md
    dropped = result.model_copy(update={"human_acts": [result.human_acts[1]]})
    assert "link to the previous record is broken" in verify_chain(dropped.audit_records)[1]


def test_docx_has_title_and_author() -> None:
    props = Document(io.BytesIO(_export(_annotated(), "docx"))).core_properties
    assert props.title == "What is the AML reporting threshold?" and props.author == "bob@example.org"
    untitled = Document(io.BytesIO(_export(_result(question=""), "docx"))).core_properties
    assert untitled.title == "Compliance research export" and untitled.author == "local"


def test_exports_show_the_settings_snapshot_or_say_it_is_missing() -> None:
    snapshot = Settings(quality_threshold=0.7, plateau_cycles=3).snapshot("offline", 2)
    md = unescape(_export(_result(settings=snapshot), "md").decode())
    assert "| Quality threshold | 0.70 |" in md and "for 3 cycles" in md and "| Maximum cycles | 2 |" in md
    assert json.loads(_export(_result(settings=snapshot), "json"))["settings"]["quality_threshold"] == 0.7
    old = unescape(_export(_result(), "md").decode())
    assert "Settings: not recorded: this session started before settings were kept with it." in old
    assert "settings_note" in json.loads(_export(_result(), "json"))


def test_the_cycle_is_told_as_on_the_research_page() -> None:
    md = unescape(_export(_result(evaluation_cycle=1, max_evaluation_cycles=4), "md").decode())
    assert "| Cycle | 1 of 4 |" in md and "Cycles run" not in md


def test_records_sealed_before_human_acts_existed_still_verify() -> None:
    """A cycle record as the previous version stored it (hash computed by that version)."""
    stored = {
        "cycle_number": 0,
        "timestamp": "2026-01-01T00:00:00+00:00",
        "deficiencies_found": ["D-1"],
        "deficiencies_resolved": [],
        "overall_score": 0.5,
        "retrieval_queries_issued": [],
        "decisions": [{"deficiency_id": "D-1", "action": "approve", "query": None, "note": "", "decided_by": "alice"}],
        "engine": "offline",
        "critics": [],
        "status_counts": {},
        "type_counts": {},
        "answer": "",
        "notes": [],
        "llm_calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "prev_hash": "",
        "record_hash": "1da63322fb8789a43645d92dbe6096fa6895059c99789203db9f64961be52454",
    }
    assert verify_chain([stored]) == (True, "1 cycle records verified")


# ------------------------------------------------------------------------------------- exports for a reader
PLAN = ResearchPlan(
    question="Compare owner thresholds in the EU and the US",
    as_of=date(2024, 5, 1),
    jurisdictions=(PlannedJurisdiction(code="EU", name="European Union"), PlannedJurisdiction(code="US", name="US")),
    comparison=True,
    items=(
        PlanItem(id="EU:threshold", jurisdiction="EU", aspect=Aspect.threshold, ask="the EU threshold", query="q"),
        PlanItem(id="US:threshold", jurisdiction="US", aspect=Aspect.threshold, ask="the US threshold", query="q"),
        PlanItem(id="US:scope", jurisdiction="US", aspect=Aspect.scope, ask="who the US rule covers", query="q"),
    ),
)
EU_CLAIM = Claim(
    text="Owners above 25% must be identified.",
    plan_item_ids=("EU:threshold",),
    citations=(Quote(doc_id="eu-amld6", chunk_id="eu-amld6#0", quote="Owners above 25%"),),
)
US_CLAIM = Claim(
    text="Owners at 0.46 of the shares, reported by 19:44:33.",
    plan_item_ids=("US:threshold",),
    citations=(Quote(doc_id="uk-mlr-2017", chunk_id="uk-mlr-2017#1", quote="Owners"),),
)
US_SCOPE = Claim(text="The rule covers money service businesses.", plan_item_ids=("US:scope",))
TYPED = Answer(
    sections=(
        AnswerSection(jurisdiction="EU", claims=(EU_CLAIM,)),
        AnswerSection(jurisdiction="US", claims=(US_CLAIM, US_SCOPE)),
    ),
    gaps=(Gap(plan_item_id="US:date", text="The corpus holds no source on the US deadline."),),
)
UNCORRECTABLE = _deficiency(
    "contradiction:eu",
    ResolutionStatus.unresolvable,
    deficiency_type=DeficiencyType.contradictory_sources,
    severity=Severity.medium,
)
CODES = (
    {t.value for t in DeficiencyType}
    | {s.value for s in DocStatus}
    | {s.value for s in SessionStatus}
    | set(REASON_CODES)
    | {"review_edit", "accepted_risk"}
)
INTERNAL_CODES = {c for c in CODES if "_" in c}
"""The codes a reader would stumble over (one-word codes such as `open` read as words)."""


def _reader_result(**kw: object) -> RunResult:
    base: dict[str, object] = {
        "plan": PLAN,
        "answer": TYPED,
        "current_answer": render_markdown(TYPED, PLAN),
        "termination_reason": "only_unresolvable_remaining",
        "residual_deficiencies": [DISMISSED, UNRESOLVABLE, ANALYST, UNCORRECTABLE],
        "identified_deficiencies": [DISMISSED, UNRESOLVABLE, ANALYST, UNCORRECTABLE, RESOLVED],
    }
    return _result(**{**base, **kw})


def _docx_document(data: bytes) -> Any:
    return Document(io.BytesIO(data))


def test_markdown_and_word_say_every_code_in_words_and_json_keeps_the_codes() -> None:
    result = _reader_result()
    md = _export(result, "md").decode()
    text, tables = _docx_text(_export(result, "docx"))
    cells = " ".join(c for t in tables for row in t for c in row)
    for rendered in (md, text + cells):
        assert not [c for c in INTERNAL_CODES if c in rendered]
    assert "only dismissed or unresolvable deficiencies remain" not in md.split("## Termination")[1]  # a sentence
    assert "Only dismissed or unresolvable deficiencies remain" in md
    assert "contradictory sources" in md and "in force" in md
    data = json.loads(_export(result, "json"))
    assert data["termination_reason"] == "only_unresolvable_remaining"
    assert data["residual_deficiencies"][0]["deficiency_type"] in {t.value for t in DeficiencyType}
    assert data["outcome"]["counts"]["residual"] == 4 and data["exported_by"] == "local"


def test_a_deficiency_the_analyst_added_is_told_in_words_in_the_act_table() -> None:
    """The added act's text names the deficiency type in words (it reached the exports as its code)."""
    history = _history()
    acts = sealed_acts(
        [added_act(ANALYST, "found on a second read", "bob", 1, "2024-05-01T10:02:00+00:00")], history[-1].record_hash
    )
    result = _reader_result(evaluation_history=history, human_acts=acts)
    md = _export(result, "md").decode()
    text, tables = _docx_text(_export(result, "docx"))
    act_table = next(t for t in tables if t[0][0] == "When")
    assert act_table[1][5] == "added insufficient specificity: sanctions screening (medium); query: "
    for rendered in (md, text + " ".join(c for t in tables for row in t for c in row)):
        assert not [c for c in INTERNAL_CODES if c in rendered]


def test_markdown_escapes_only_what_would_render_live() -> None:
    md = _export(_reader_result(), "md").decode()
    assert not re.findall(r"\\[.:,;()'\"%/-]", md)  # no backslash before ordinary punctuation
    assert "0.46 of the shares, reported by 19:44:33." in md
    assert "| Quality score | 0.88 |" in md
    assert "- Owners above 25% must be identified. [eu-amld6]" in md  # a list item, the citation mark as written
    assert "- The corpus holds no source on the US deadline." in md
    assert live_markup(md) == []


def test_the_markdown_of_hostile_text_stays_inert_but_readable() -> None:
    escaped = md_file_escape(HOSTILE)
    assert live_markup(escaped) == [] and "Owners above 25% ![x\\](http" in escaped
    for ordinary in ("0.46", "Sources: a; b.", "19:44:33", "a < 10", "C:\\path", "snake_case", "-5%", "2.5 (a)"):
        assert md_file_escape(ordinary) == ordinary
    for block in ("# heading", "> quote", "- item", "1. item", "===", "---"):
        assert md_file_escape(block) != block and unescape(md_file_escape(block)) == block


def test_word_has_real_tables_and_lists_from_the_typed_answer() -> None:
    doc = _docx_document(_export(_reader_result(), "docx"))
    comparison = next(t for t in doc.tables if t.rows[0].cells[0].text == "jurisdiction")
    assert [c.text for c in comparison.rows[0].cells] == [
        "jurisdiction",
        "scope and applicability",
        "thresholds and figures",
    ]
    assert [c.text for c in comparison.rows[2].cells] == [
        "US",
        "The rule covers money service businesses",
        "not stated (see US below)",  # a threshold cell holds a figure: "0.46 of the shares" is none
    ]
    bullets = [p.text for p in doc.paragraphs if p.style.name == "List Bullet"]
    assert "Owners above 25% must be identified. [eu-amld6]" in bullets
    assert "The corpus holds no source on the US deadline." in bullets
    headings = [p.text for p in doc.paragraphs if p.style.name.startswith("Heading")]
    assert "EU (European Union)" in headings and "Not answered by the corpus" in headings
    for p in doc.paragraphs:  # no Markdown marker reaches Word
        assert not re.match(r"\s*(#|- |\* |\|)", p.text) and "**" not in p.text and "\\" not in p.text


def test_the_empty_and_zero_attempt_cases_are_worded() -> None:
    md = unescape(_export(_reader_result(), "md").decode())
    assert "unresolvable: the critic found that no correction retrieval can fix it" in md
    assert "after 0 attempts" not in md
    nothing = _result(residual_deficiencies=[], identified_deficiencies=[], termination_reason="no_open_deficiencies")
    md = unescape(_export(nothing, "md").decode())
    assert f"## {RESIDUAL_HEADING}\n\n{NOTHING_FOUND}" in md and NO_RESIDUALS not in md
    assert "No problem was found: the critics raised no deficiency." in md
    text, _ = _docx_text(_export(nothing, "docx"))
    assert NOTHING_FOUND in text


def test_the_export_says_who_asked_and_who_exported() -> None:
    result = _reader_result(started_by="ana")
    ok, message = verify_chain(result.audit_records)
    md = render(result, "md", audit_ok=ok, audit_message=message, exported_by="ana").decode()
    assert "| Started by | ana |" in md and "| Exported by | ana |" in md and "| User |" not in md
    assert "local" not in md.split("## Answer")[0]


def test_a_struck_claim_is_listed_in_every_export() -> None:
    answer = strike(TYPED, PLAN, claim_id("US", US_SCOPE), "out of scope", "ana", "2024-05-01T10:02:00+00:00")
    result = _reader_result(answer=answer, current_answer=render_markdown(answer, PLAN))
    md = unescape(_export(result, "md").decode())
    struck = md.split("## Struck claims")[1].split("## Citations")[0]
    assert (
        f"| {claim_id('US', US_SCOPE)} | US | The rule covers money service businesses. | out of scope | ana |"
        in struck
    )
    assert "- The rule covers money service businesses." not in md
    (gap,) = [g for g in answer.gaps if g.struck_by]
    assert f"{STRUCK_GAP_HEADING}\n\n- {gap.text}" in md and gap.text.endswith(
        " (out of scope); no other claim states it."
    )  # a gap now
    _, tables = _docx_text(_export(result, "docx"))
    assert any(row[2:3] == ["The rule covers money service businesses."] for t in tables for row in t)
    assert json.loads(_export(result, "json"))["answer"]["struck"][0]["reason"] == "out of scope"
