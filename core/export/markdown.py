"""The Markdown export: a file that reads cleanly as text and renders inert (only what would render live is
escaped, by `md_file_escape`)."""

from __future__ import annotations

from core.domain.answer import RESIDUAL_HEADING
from core.domain.safe_markdown import md_file_escape, md_file_inline
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


def md_cell(text: str) -> str:
    """Untrusted text for one Markdown table cell: one line, inert (the escaped `|` adds no cell)."""
    return " ".join(md_file_inline(text).split())


def _table(header: Row, rows: list[Row]) -> list[str]:
    lines = ["| " + " | ".join(md_cell(c) for c in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_cell(cell) for cell in row) + " |" for row in rows]
    return [*lines, ""]


def _section(heading: str, header: Row, rows: list[Row], empty: str) -> list[str]:
    return [f"## {heading}", "", *(_table(header, rows) if rows else [md_file_escape(empty), ""])]


def _block(block: Block) -> list[str]:
    """One answer block below the export's own headings."""
    if block.kind == "heading":
        return [f"### {md_file_inline(block.text)}", ""]
    if block.kind == "bullets":
        return [*(f"- {md_file_inline(item)}" for item in block.items), ""]
    if block.kind == "table":
        return _table(block.rows[0], block.rows[1:])
    return [md_file_escape(block.text), ""]


def render_markdown(e: Export) -> bytes:
    out = ["# Compliance research export", ""]
    if not e.finished:
        out += [f"> **PROVISIONAL.** {md_file_inline(provisional_notice(e))}", ""]
    out += _table(["Field", "Value"], metadata_rows(e))
    out += ["## Answer", ""]
    blocks = answer_blocks(e)
    for block in blocks:
        out += _block(block)
    if not blocks:
        out += [f"_{NO_ANSWER}_", ""]
    out += _section(RESIDUAL_HEADING, RESIDUAL_HEADER, residual_rows(e), no_residuals(e))
    out += _section("Struck claims", STRUCK_HEADER, struck_rows(e), NO_STRUCK)
    out += _section("Citations", CITATION_HEADER, citation_rows(e), "No sources cited.")
    out += _section("Evaluation cycles", CYCLE_HEADER, cycle_rows(e), "No evaluation cycle has run.")
    out += _section("Human acts", ACT_HEADER, act_rows(e), NO_ACTS)
    out += _section("Settings at start", SETTINGS_HEADER, settings_rows(e), SETTINGS_MISSING)
    out += ["## Termination", "", md_file_escape(termination(e)), ""]
    out += ["## Audit", ""]
    for line in audit_lines(e):
        out += [md_file_escape(line), ""]
    return "\n".join(out).encode("utf-8")
