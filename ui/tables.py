"""Tables and lines that show provenance and history: the corpus list with its warning flags, search hits with
badges, review decisions in words, and session labels that tell branches apart.

No Streamlit here: plain DataFrames and strings (Streamlit Markdown with fixed markup; untrusted text escaped),
unit-tested without a browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from core.domain.documents import DocStatus, DocumentMeta, Provenance
from core.domain.records import DecisionRecord, Deficiency, EvaluationCycleRecord
from core.domain.safe_markdown import md_escape
from core.service import SessionSummary

WRAP_ROW_HEIGHT = 72
"""Row height in pixels at which a table's cells wrap their text (the grid wraps only above 4 rem, 64 px): three
lines per cell, so long text reads instead of being cut off."""
HEADER_HEIGHT = 38
SCROLLBAR_HEIGHT = 16
"""Room for the horizontal scroll bar of a grid wider than the page, so it does not hide the last row."""
MAX_GRID_HEIGHT = 1200
UNVERIFIED = "unverified"
INSTRUCTIONS = "instructions"
FLAG_COLORS: dict[str, str] = {
    INSTRUCTIONS: "red",
    DocStatus.erroneous.value: "red",
    DocStatus.proposed.value: "orange",
    DocStatus.superseded.value: "gray",
    DocStatus.repealed.value: "gray",
    UNVERIFIED: "orange",
}
"""The warning flags of a document (text in it that instructs a model, its status today when a reader must not
rely on it as the law, and an upload nobody verified) and their badge colours, in the order they are listed. A
rule not yet applicable is the law to come, not a warning: its status column says so."""
FLAGS: tuple[str, ...] = tuple(FLAG_COLORS)
DOCUMENT_COLUMNS: tuple[str, ...] = (
    "id",
    "title",
    "flags",
    "status today",
    "verified",
    "source",
    "jurisdiction",
    "declared status",
    "effective",
    "authority",
    "citation",
    "topics",
)
DECISION_WORDS: dict[str, str] = {
    "approve": "approved",
    "edit": "query edited",
    "reject": "rejected",
    "add": "added",
}


def grid_height(rows: int, *, adding: bool = False, cap: int = MAX_GRID_HEIGHT) -> int:
    """The grid's height in pixels for `rows` rows (and the editor's trailing add-row line when rows can be
    added), so every row shows without scrolling inside the grid up to `cap`."""
    return min(HEADER_HEIGHT + WRAP_ROW_HEIGHT * (rows + int(adding)) + SCROLLBAR_HEIGHT, cap)


def flag_label(flag: str) -> str:
    """`not_yet_applicable` -> `not yet applicable`."""
    return flag.replace("_", " ")


def document_flags(status_today: str, provenance: Provenance) -> list[str]:
    """What a reader must notice about a document before relying on it: `instructions` when a passage addresses a
    model or reader with instructions, its status today when it is erroneous, proposed, superseded or repealed, and
    `unverified` for an upload no analyst has verified."""
    flags = [INSTRUCTIONS] if provenance.instructed else []
    flags += [status_today] if status_today in FLAG_COLORS else []
    return flags + ([UNVERIFIED] if provenance.unverified_upload else [])


def source_text(provenance: Provenance) -> str:
    """How a document arrived, in a few words: `bundled sample`, `upload by ana (upload:memo.md)`, `ingested
    from a file by ops`."""
    kind = {"bundled": "bundled sample", "upload": "upload", "path": "ingested from a file"}.get(
        provenance.kind, provenance.kind
    )
    who = f" by {provenance.actor}" if provenance.actor else ""
    where = f" ({provenance.source})" if provenance.source and provenance.kind != "bundled" else ""
    return f"{kind}{who}{where}"


def verified_text(provenance: Provenance) -> str:
    """`yes, by ana on 2026-11-30`, `yes`, or `no`."""
    if not provenance.verified:
        return "no"
    who = f" by {provenance.verified_by}" if provenance.verified_by else ""
    when = f" on {provenance.verified_at.date().isoformat()}" if provenance.verified_at else ""
    return f"yes,{who}{when}" if who or when else "yes"


def document_frame(documents: Iterable[DocumentMeta], status_today: Mapping[str, str]) -> pd.DataFrame:
    """Corpus documents as a browsable table with their provenance: flags, verification and source first."""
    rows = []
    for d in documents:
        today = status_today.get(d.id, d.status.value)
        rows.append(
            {
                "id": d.id,
                "title": d.title,
                "flags": document_flags(today, d.provenance),
                "status today": flag_label(today),
                "verified": verified_text(d.provenance),
                "source": source_text(d.provenance),
                "jurisdiction": d.jurisdiction,
                "declared status": flag_label(d.status.value),
                "effective": d.effective,
                "authority": d.authority or "",
                "citation": d.citation or "",
                "topics": ", ".join(d.topics),
            }
        )
    return pd.DataFrame(rows, columns=list(DOCUMENT_COLUMNS))


def badges(flags: Iterable[str]) -> str:
    """Flags as Streamlit badges (fixed markup: only known flag names are shown)."""
    return " ".join(f":{FLAG_COLORS[f]}-badge[{flag_label(f)}]" for f in flags if f in FLAG_COLORS)


def hit_heading(title: str, status: str, provenance: Provenance | None) -> str:
    """A search hit's first line: its title in bold, with badges for a status to beware of and an unverified
    upload."""
    flags = document_flags(status, provenance) if provenance is not None else [status]
    marks = badges(flags)
    return f"**{md_escape(title)}**" + (f" {marks}" if marks else "")


def decision_words(decisions: Sequence[DecisionRecord]) -> str:
    """A cycle's review decisions in words, counted by kind: `2 approved, 1 rejected (1 by the approval policy)`."""
    if not decisions:
        return "none"
    counts: dict[str, int] = {}
    for d in decisions:
        word = DECISION_WORDS.get(d.action, d.action)
        counts[word] = counts.get(word, 0) + 1
    automatic = sum(d.automatic for d in decisions)
    policy = f" ({automatic} by the approval policy)" if automatic else ""
    return ", ".join(f"{n} {word}" for word, n in counts.items()) + policy


def branch_text(s: SessionSummary) -> str:
    """`branch of <parent> at cycle 2`, or empty for a session asked afresh."""
    return f"branch of {s.parent_thread_id} at cycle {s.branched_from_cycle}" if s.parent_thread_id else ""


def session_choice(s: SessionSummary, status: str) -> str:
    """A session as the Sessions page lists it for choosing: the whole question, its status and creation time,
    and for a branch its parent and cycle, so two sessions of one question read apart."""
    branch = f" · {branch_text(s)}" if s.parent_thread_id else ""
    return f"{s.question} · {status} · {s.created_at[:16].replace('T', ' ')}{branch} · {s.thread_id}"


def decision_frame(history: Sequence[EvaluationCycleRecord], deficiencies: Iterable[Deficiency]) -> pd.DataFrame:
    """Every review decision of the session in words, one row each: the cycle, the deficiency by its type and
    subject, what was decided, by whom and why."""
    named = {d.id: f"{d.deficiency_type.value.replace('_', ' ')}: {d.subject}" for d in deficiencies}
    rows = [
        {
            "cycle": r.cycle_number,
            "deficiency": named.get(x.deficiency_id, x.deficiency_id),
            "decision": DECISION_WORDS.get(x.action, x.action),
            "by": "approval policy" if x.automatic else x.decided_by,
            "note": x.note,
            "id": x.deficiency_id,
        }
        for r in history
        for x in r.decisions
    ]
    return pd.DataFrame(rows, columns=["cycle", "deficiency", "decision", "by", "note", "id"])
