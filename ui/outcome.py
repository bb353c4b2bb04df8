"""How a session's outcome is shown: its badge and the one outcome box every page shows (both from
`core.domain.outcome`, the one source of the counts and words), and the inline markers of the answer's flagged
sentences.

No Streamlit here: all are plain strings, unit-tested without a browser.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.domain.outcome import Outcome
from core.domain.records import Deficiency, ResolutionStatus
from core.domain.safe_markdown import md_escape

MARKER = "⚠"
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s|$)|\s*\||\s*\n|\s*$")


def live_residuals(residual: Iterable[Deficiency]) -> list[Deficiency]:
    """The residual deficiencies that still count against the answer: every one the analyst did not dismiss."""
    return [d for d in residual if d.resolution_status != ResolutionStatus.dismissed]


def outcome_markdown(outcome: Outcome) -> str:
    """The outcome as every page shows it: badge, headline, the counts line and (once finished) why the loop
    stopped; inert Markdown built from counts and fixed sentences only."""
    lines = [f"{outcome.badge_markdown()} {outcome.headline}", f"**Deficiencies:** {outcome.counts.line()}"]
    if outcome.reason:
        lines.append(f"**Why the loop stopped:** {outcome.reason}")
    return "  \n".join(lines)


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
