"""Session exports for a reader (Markdown, Word) and for machines (JSON), with residual deficiencies disclosed,
struck claims listed and the audit chain's verdict.

Markdown and Word say every code in words (core.domain.wording) and are built from the typed answer; the JSON keeps
the codes. Everything embedded is untrusted text (document passages, critic output, analyst notes): the Markdown
escapes it with `core.domain.safe_markdown.md_file_escape`, so it can neither load nor link anything yet reads
cleanly as a file; Word drops characters XML cannot hold. Of the settings only the session's snapshot of its
termination and engine settings is exported (no secrets, no addresses).
"""

from __future__ import annotations

from collections.abc import Callable

from core.domain.answer import RESIDUAL_HEADING
from core.domain.results import RunResult
from core.export.content import NO_RESIDUALS, NOTHING_FOUND, Export
from core.export.machine import render_json
from core.export.markdown import render_markdown
from core.export.word import render_docx

FORMATS = ("md", "json", "docx")


def render(result: RunResult, fmt: str, *, audit_ok: bool, audit_message: str, exported_by: str = "local") -> bytes:
    """The session as `md`, `json` or `docx` bytes, made by `exported_by`; any other format raises ValueError."""
    renderers: dict[str, Callable[[Export], bytes]] = {"md": render_markdown, "json": render_json, "docx": render_docx}
    if fmt not in renderers:
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    return renderers[fmt](Export(result, audit_ok, audit_message, exported_by))


__all__ = ["FORMATS", "NOTHING_FOUND", "NO_RESIDUALS", "RESIDUAL_HEADING", "render"]
