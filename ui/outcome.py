"""How a session's outcome is shown: its status badge (coloured by the worst residual severity) and the inline
markers of the answer's flagged sentences.

No Streamlit here: both are plain strings, unit-tested without a browser.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from core.domain.records import Deficiency, ResolutionStatus, Severity
from core.domain.results import AWAITING_REVIEW, COMPLETED, INTERRUPTED, RUNNING
from core.domain.safe_markdown import md_escape

STATUS_COLORS: dict[str, str] = {COMPLETED: "green", AWAITING_REVIEW: "orange", INTERRUPTED: "red", RUNNING: "blue"}
SEVERITY_COLORS: dict[Severity, str] = {Severity.critical: "red", Severity.high: "orange", Severity.medium: "orange"}
"""Residuals of these severities colour a finished session's badge; low ones (and dismissed ones) leave it green."""
MARKER = "⚠"
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s|$)|\s*\||\s*\n|\s*$")


def live_residuals(residual: Iterable[Deficiency]) -> list[Deficiency]:
    """The residual deficiencies that still count against the answer: every one the analyst did not dismiss."""
    return [d for d in residual if d.resolution_status != ResolutionStatus.dismissed]


def outcome_badge(status: str, residual: Sequence[Deficiency]) -> tuple[str, str]:
    """(colour, text) of a session's badge. A finished session is red with a critical residual, orange with a
    high or medium one, green when nothing (or only low or dismissed deficiencies) remains."""
    if status != COMPLETED:
        return STATUS_COLORS.get(status, "gray"), status.replace("_", " ")
    counted = [d for d in live_residuals(residual) if d.severity in SEVERITY_COLORS]
    if not counted:
        return "green", "completed"
    worst = max(counted, key=lambda d: d.severity.rank).severity
    parts = []
    for severity in sorted(SEVERITY_COLORS, key=lambda s: -s.rank):
        n = sum(d.severity == severity for d in counted)
        if n:
            parts.append(f"{n} {severity.value}")
    residuals = "residual" if len(counted) == 1 else "residuals"
    return SEVERITY_COLORS[worst], f"completed with {' and '.join(parts)} {residuals}"


def badge_markdown(status: str, residual: Sequence[Deficiency]) -> str:
    """The badge as Streamlit Markdown (fixed markup: the text is built from status and severity names only)."""
    color, text = outcome_badge(status, residual)
    return f":{color}-badge[{text}]"


def flag_answer(rendered: str, residual: Iterable[Deficiency]) -> str:
    """The rendered (escaped) answer Markdown with ` ⚠ [D-…]` after each sentence holding a residual deficiency's
    affected text. Dismissed deficiencies and ones without affected text (or whose text is not in the answer) add
    no marker; several markers on one sentence follow each other in the residuals' order."""
    inserts: dict[int, list[str]] = {}
    lowered = rendered.lower()
    for d in live_residuals(residual):
        needle = " ".join(d.affected_text.split())
        if not needle:
            continue
        escaped = md_escape(needle).lower()
        start = lowered.find(escaped)
        if start < 0:
            continue
        end = _SENTENCE_END_RE.search(rendered, start + len(escaped))
        at = end.start() + 1 if end and end.group(0) in ".!?" else end.start() if end else len(rendered)
        inserts.setdefault(at, []).append(f" {MARKER} {md_escape(f'[{d.id}]')}")
    out = rendered
    for at in sorted(inserts, reverse=True):
        out = out[:at] + "".join(inserts[at]) + out[at:]
    return out
