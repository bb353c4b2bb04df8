"""The Word export: real headings, tables and bulleted lists, built from the typed answer (no Markdown marker
reaches the document)."""

from __future__ import annotations

import io

from docx import Document
from docx.document import Document as DocxDocument

from core.domain.answer import RESIDUAL_HEADING
from core.domain.safe_markdown import CONTROL_RE
from core.export.content import (
    ACT_HEADER,
    CITATION_HEADER,
    CYCLE_HEADER,
    NO_ACTS,
    NO_ANSWER,
    NO_STRUCK,
    RESIDUAL_HEADER,
    SETTINGS_HEADER,
    SETTINGS_MISSING,
    STRUCK_HEADER,
    Block,
    Export,
    Row,
    act_rows,
    answer_blocks,
    audit_lines,
    citation_rows,
    cycle_rows,
    metadata_rows,
    no_residuals,
    provisional_notice,
    residual_rows,
    settings_rows,
    struck_rows,
    termination,
)


def plain(text: str) -> str:
    """Text python-docx can store: characters XML forbids become spaces."""
    return CONTROL_RE.sub(" ", text)


def _table(doc: DocxDocument, header: Row, rows: list[Row]) -> None:
    table = doc.add_table(rows=1, cols=len(header))
    table.style = "Table Grid"
    for cell, text in zip(table.rows[0].cells, header):
        cell.text = ""
        cell.paragraphs[0].add_run(plain(text)).bold = True
    for row in rows:
        for cell, text in zip(table.add_row().cells, row):
            cell.text = plain(text)


def _section(doc: DocxDocument, heading: str, header: Row, rows: list[Row], empty: str) -> None:
    doc.add_heading(heading, level=1)
    if rows:
        _table(doc, header, rows)
    else:
        doc.add_paragraph(empty)


def _block(doc: DocxDocument, block: Block) -> None:
    if block.kind == "heading":
        doc.add_heading(plain(block.text), level=2)
    elif block.kind == "bullets":
        for item in block.items:
            doc.add_paragraph(plain(item), style="List Bullet")
    elif block.kind == "table":
        _table(doc, block.rows[0], block.rows[1:])
    else:
        doc.add_paragraph(plain(block.text))


def render_docx(e: Export) -> bytes:
    r = e.result
    doc = Document()
    doc.core_properties.title = plain(r.question.strip()) or "Compliance research export"
    doc.core_properties.author = plain(r.started_by or r.user_id)
    doc.add_heading("Compliance research export", level=0)
    if not e.finished:
        notice = doc.add_paragraph()
        notice.add_run("PROVISIONAL. ").bold = True
        notice.add_run(provisional_notice(e))
    _table(doc, ["Field", "Value"], metadata_rows(e))
    doc.add_heading("Answer", level=1)
    blocks = answer_blocks(e)
    for block in blocks:
        _block(doc, block)
    if not blocks:
        doc.add_paragraph(NO_ANSWER)
    _section(doc, RESIDUAL_HEADING, RESIDUAL_HEADER, residual_rows(e), no_residuals(e))
    _section(doc, "Struck claims", STRUCK_HEADER, struck_rows(e), NO_STRUCK)
    _section(doc, "Citations", CITATION_HEADER, citation_rows(e), "No sources cited.")
    _section(doc, "Evaluation cycles", CYCLE_HEADER, cycle_rows(e), "No evaluation cycle has run.")
    _section(doc, "Human acts", ACT_HEADER, act_rows(e), NO_ACTS)
    _section(doc, "Settings at start", SETTINGS_HEADER, settings_rows(e), SETTINGS_MISSING)
    doc.add_heading("Termination", level=1)
    doc.add_paragraph(plain(termination(e)))
    doc.add_heading("Audit", level=1)
    for line in audit_lines(e):
        doc.add_paragraph(plain(line))
    buffer = io.BytesIO()
    doc.save(buffer)
    return buffer.getvalue()
