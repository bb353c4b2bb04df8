"""Session exports (Markdown, JSON, DOCX) with residual deficiencies disclosed and the audit chain's verdict.

Everything embedded is untrusted text (document passages, critic output, analyst notes): the Markdown export
escapes it with `core.domain.safe_markdown` (the pages' function), so it can neither load nor link anything (no image,
link, autolink, raw URL, HTML or directive); DOCX drops characters XML cannot hold.
Of the settings only the session's snapshot of its termination and engine settings is exported (no secrets, no
addresses). Every human act (review decisions, board edits, added rows, annotations) is listed with who, when, what
changed and why, and the audit line names the chain's head hash.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable

from docx import Document
from docx.document import Document as DocxDocument

from core.domain.answer import RESIDUAL_HEADING
from core.domain.audit import NO_SNAPSHOT, chain_head
from core.domain.clock import utc_now
from core.domain.records import Deficiency, HumanActRecord, ResolutionStatus
from core.domain.results import RunResult
from core.domain.safe_markdown import answer_markdown, md_escape
from core.domain.stop_reasons import describe

FORMATS = ("md", "json", "docx")
NO_RESIDUALS = "None: every deficiency found was resolved."
_XML_ILLEGAL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

Row = list[str]


def render(result: RunResult, fmt: str, *, audit_ok: bool, audit_message: str) -> bytes:
    """The session as `md`, `json` or `docx` bytes; any other format raises ValueError."""
    renderers: dict[str, Callable[[RunResult, bool, str], bytes]] = {"md": _markdown, "json": _json, "docx": _docx}
    if fmt not in renderers:
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    return renderers[fmt](result, audit_ok, audit_message)


# ------------------------------------------------------------------------------------------ shared content
def _finished(result: RunResult) -> bool:
    return result.status == "completed"


def _provisional_notice(result: RunResult) -> str:
    return (
        f"This session has not finished (status: {result.status}). "
        "The answer below is provisional and may still change."
    )


def _score(value: float | None) -> str:
    return "not scored" if value is None else f"{value:.2f}"


def _termination(result: RunResult) -> str:
    text = describe(result.termination_reason)
    return f"{text} ({result.termination_reason})" if result.termination_reason else text


def _audit_line(ok: bool, message: str) -> str:
    verdict = "verified" if ok else "FAILED, the records may have been altered"
    return f"Audit chain check: {verdict}. {message}"


def _audit_lines(result: RunResult, ok: bool, message: str) -> list[str]:
    """The verdict, what it covers and the chain's head hash."""
    head = chain_head(result.audit_records) or "none"
    return [
        _audit_line(ok, message),
        f"Verification covers all records: {len(result.evaluation_history)} cycle records and "
        f"{len(result.human_acts)} human acts in one chain.",
        f"Chain head: {head}",
    ]


def _settings_rows(result: RunResult) -> list[Row]:
    return result.settings.rows() if result.settings else []


def _metadata_rows(result: RunResult, exported_at: str) -> list[Row]:
    return [
        ["Question", result.question],
        ["As-of date", result.as_of.isoformat() if result.as_of else "not set"],
        ["Status", result.status],
        ["Engine", result.engine],
        ["Written by", result.written_by or "not recorded"],
        ["Quality score", _score(result.quality_score)],
        ["Cycle", f"{result.evaluation_cycle} of {result.max_evaluation_cycles}"],
        ["Termination reason", _termination(result)],
        ["Session", result.thread_id],
        ["User", result.user_id],
        ["Exported at", exported_at],
    ]


def why_unresolved(d: Deficiency, *, finished: bool) -> str:
    """Why a residual deficiency is still there, from its resolution status and annotations."""
    attempts = d.resolution_attempt_count
    match d.resolution_status:
        case ResolutionStatus.dismissed:
            reason = f"dismissed by the analyst ({d.analyst_note or 'no note given'})"
        case ResolutionStatus.unresolvable:
            reason = f"unresolvable after {attempts} attempt{'s' if attempts != 1 else ''}"
        case ResolutionStatus.open:
            reason = "still open when the loop stopped" if finished else "still open: the loop has not finished"
        case ResolutionStatus.addressed if d.origin == "analyst":
            reason = "addressed but not verifiable: added by the analyst, so no critic re-checks it"
        case ResolutionStatus.addressed:
            reason = "addressed: a correction was retrieved but not yet re-checked"
        case _:
            reason = d.resolution_status.value
    if d.analyst_note and d.resolution_status != ResolutionStatus.dismissed:
        reason += f"; analyst note: {d.analyst_note}"
    if d.accepted_risk:
        reason += "; risk accepted by the analyst"
    return reason


RESIDUAL_HEADER: Row = ["ID", "Severity", "Type", "Subject", "Description", "Why unresolved"]
CITATION_HEADER: Row = [
    "Document",
    "Title",
    "Jurisdiction",
    "Citation",
    "Declared status",
    "Status at as-of",
    "Effective",
    "Passages quoted",
]
CYCLE_HEADER: Row = ["Cycle", "Score", "Found", "Resolved", "Queries issued", "Decisions"]
ACT_HEADER: Row = ["When", "Who", "Act", "Deficiency", "Cycle", "What changed", "Why"]
SETTINGS_HEADER: Row = ["Setting", "Value"]
NO_ACTS = "No human act recorded."


def _change(a: HumanActRecord) -> str:
    """What an act changed: the decision taken, the row added, or a field's old -> new value."""
    if a.kind == "decision":
        return a.new
    if a.kind == "added":
        return f"added {a.new}"
    return f"{a.field}: {a.old or '(empty)'} -> {a.new or '(empty)'}"


def _act_rows(result: RunResult) -> list[Row]:
    return [
        [a.at, a.actor, a.kind.replace("_", " "), a.deficiency_id, str(a.cycle), _change(a), a.reason]
        for a in result.human_acts
    ]


def _residual_rows(result: RunResult) -> list[Row]:
    ordered = sorted(result.residual_deficiencies, key=lambda d: -d.severity.rank)
    return [
        [
            d.id,
            d.severity.value,
            d.deficiency_type.value,
            d.subject,
            d.description,
            why_unresolved(d, finished=_finished(result)),
        ]
        for d in ordered
    ]


def _citation_rows(result: RunResult) -> list[Row]:
    return [
        [
            c.doc_id,
            c.title,
            c.jurisdiction,
            c.citation or "",
            c.declared_status,
            c.status_at_as_of,
            c.effective.isoformat() if c.effective else "unknown",
            ", ".join(c.passage_ids or c.chunk_ids),
        ]
        for c in result.citations
    ]


def _ids(ids: tuple[str, ...]) -> str:
    return f"{len(ids)} ({', '.join(ids)})" if ids else "0"


def _cycle_rows(result: RunResult) -> list[Row]:
    rows = []
    for r in result.evaluation_history:
        decisions = "; ".join(
            f"{x.deficiency_id}: {x.action}{' (auto)' if x.automatic else ''} by {x.decided_by}"
            + (f", query: {x.query}" if x.query else "")
            + (f", note: {x.note}" if x.note else "")
            for x in r.decisions
        )
        rows.append(
            [
                str(r.cycle_number),
                f"{r.overall_score:.2f}",
                _ids(r.deficiencies_found),
                _ids(r.deficiencies_resolved),
                "; ".join(r.retrieval_queries_issued) or "none",
                decisions or "none",
            ]
        )
    return rows


# ----------------------------------------------------------------------------------------------- Markdown
def md_cell(text: str) -> str:
    """Untrusted text for one Markdown table cell: one line, inert (the escaped `|` adds no cell)."""
    return " ".join(md_escape(text).split())


def _md_table(header: Row, rows: list[Row]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_cell(cell) for cell in row) + " |" for row in rows]
    return [*lines, ""]


def _markdown(result: RunResult, audit_ok: bool, audit_message: str) -> bytes:
    out = ["# Compliance research export", ""]
    if not _finished(result):
        out += [f"> **PROVISIONAL.** {md_escape(_provisional_notice(result))}", ""]
    out += _md_table(["Field", "Value"], _metadata_rows(result, utc_now()))
    answer = answer_markdown(result.current_answer, heading_shift=1)  # below the export's own sections
    out += ["## Answer", "", answer or "_No answer has been drafted yet._", ""]
    out += [f"## {RESIDUAL_HEADING}", ""]
    residuals = _residual_rows(result)
    out += _md_table(RESIDUAL_HEADER, residuals) if residuals else [NO_RESIDUALS, ""]
    out += ["## Citations", ""]
    citations = _citation_rows(result)
    out += _md_table(CITATION_HEADER, citations) if citations else ["No sources cited.", ""]
    out += ["## Evaluation cycles", ""]
    cycles = _cycle_rows(result)
    out += _md_table(CYCLE_HEADER, cycles) if cycles else ["No evaluation cycle has run.", ""]
    out += ["## Human acts", ""]
    acts = _act_rows(result)
    out += _md_table(ACT_HEADER, acts) if acts else [NO_ACTS, ""]
    out += ["## Settings at start", ""]
    settings = _settings_rows(result)
    out += _md_table(SETTINGS_HEADER, settings) if settings else [md_escape(f"Settings: {NO_SNAPSHOT}."), ""]
    out += ["## Termination", "", md_escape(_termination(result)), ""]
    out += ["## Audit", ""]
    for line in _audit_lines(result, audit_ok, audit_message):
        out += [md_escape(line), ""]
    return "\n".join(out).encode("utf-8")


# --------------------------------------------------------------------------------------------------- JSON
def _json(result: RunResult, audit_ok: bool, audit_message: str) -> bytes:
    payload = result.model_dump(mode="json")
    payload["provisional"] = not _finished(result)
    payload["audit"] = {
        "verified": audit_ok,
        "message": audit_message,
        "covers": {"cycle_records": len(result.evaluation_history), "human_acts": len(result.human_acts)},
        "chain_head": chain_head(result.audit_records),
    }
    if result.settings is None:
        payload["settings_note"] = f"Settings: {NO_SNAPSHOT}."
    payload["exported_at"] = utc_now()
    return json.dumps(payload, indent=2, ensure_ascii=False).encode("utf-8")


# --------------------------------------------------------------------------------------------------- DOCX
def _plain(text: str) -> str:
    """Text python-docx can store: characters XML forbids become spaces."""
    return _XML_ILLEGAL_RE.sub(" ", text)


def _docx_table(doc: DocxDocument, header: Row, rows: list[Row]) -> None:
    table = doc.add_table(rows=1, cols=len(header))
    table.style = "Table Grid"
    for cell, text in zip(table.rows[0].cells, header):
        cell.text = ""
        cell.paragraphs[0].add_run(text).bold = True
    for row in rows:
        for cell, text in zip(table.add_row().cells, row):
            cell.text = _plain(text)


def _docx_section(doc: DocxDocument, heading: str, header: Row, rows: list[Row], empty: str) -> None:
    doc.add_heading(heading, level=1)
    if rows:
        _docx_table(doc, header, rows)
    else:
        doc.add_paragraph(empty)


def _docx(result: RunResult, audit_ok: bool, audit_message: str) -> bytes:
    doc = Document()
    doc.core_properties.title = _plain(result.question.strip()) or "Compliance research export"
    doc.core_properties.author = _plain(result.user_id)
    doc.add_heading("Compliance research export", level=0)
    if not _finished(result):
        notice = doc.add_paragraph()
        notice.add_run("PROVISIONAL. ").bold = True
        notice.add_run(_provisional_notice(result))
    _docx_table(doc, ["Field", "Value"], _metadata_rows(result, utc_now()))
    doc.add_heading("Answer", level=1)
    answer = _plain(result.current_answer.strip())
    for line in answer.splitlines() or ["No answer has been drafted yet."]:
        if line.lstrip().startswith("#"):
            doc.add_heading(line.lstrip().lstrip("#").strip(), level=2)
        elif line.strip():
            doc.add_paragraph(line)
    _docx_section(doc, RESIDUAL_HEADING, RESIDUAL_HEADER, _residual_rows(result), NO_RESIDUALS)
    _docx_section(doc, "Citations", CITATION_HEADER, _citation_rows(result), "No sources cited.")
    _docx_section(doc, "Evaluation cycles", CYCLE_HEADER, _cycle_rows(result), "No evaluation cycle has run.")
    _docx_section(doc, "Human acts", ACT_HEADER, _act_rows(result), NO_ACTS)
    _docx_section(doc, "Settings at start", SETTINGS_HEADER, _settings_rows(result), f"Settings: {NO_SNAPSHOT}.")
    doc.add_heading("Termination", level=1)
    doc.add_paragraph(_plain(_termination(result)))
    doc.add_heading("Audit", level=1)
    for line in _audit_lines(result, audit_ok, audit_message):
        doc.add_paragraph(_plain(line))
    buffer = io.BytesIO()
    doc.save(buffer)
    return buffer.getvalue()
