"""What the pages show and send, as plain data: tables, board edits turned into a review payload.

No Streamlit here, so every rule is unit-tested without a browser. Text from the corpus, the critics and the
analyst is untrusted: `md_escape` (core.domain.safe_markdown, shared with the Markdown export) makes it inert before it
reaches `st.markdown`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from core.domain.gazetteer import country_name, iso_code
from core.domain.outcome import SEVERITY_COLORS
from core.domain.records import DeficiencyType, EvaluationCycleRecord, ResolutionStatus, Severity
from core.domain.safe_markdown import answer_markdown as safe_answer_markdown
from core.domain.wording import words
from core.service import RunResult, SessionStatus, SessionSummary
from ui.tables import branch_text, decision_words

SEVERITIES: tuple[str, ...] = tuple(s.value for s in Severity)
STATUSES: tuple[str, ...] = tuple(s.value for s in ResolutionStatus)
TYPES: tuple[str, ...] = tuple(t.value for t in DeficiencyType)


def label(value: str) -> str:
    """The one on-screen wording of a type, status or stop reason (core.domain.wording): `missing_jurisdiction`
    -> `missing jurisdiction`, `only_unresolvable_remaining` -> `only dismissed or unresolvable deficiencies
    remain`."""
    return words(value)


def answer_markdown(answer: str) -> str:
    """An answer for display: inert text, one paragraph per line, section headings two levels down (below the
    page's own)."""
    return safe_answer_markdown(answer, heading_shift=2)


def severity_badge(severity: str) -> str:
    """A fixed-markup Streamlit badge for a severity value, in the one severity palette."""
    known = severity in SEVERITIES
    return f":{SEVERITY_COLORS[Severity(severity)] if known else 'gray'}-badge[{severity if known else '?'}]"


# ------------------------------------------------------------------------------------------------ board
def frame_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame rows as dicts with missing cells as None (the editor gives NaN for cells left blank)."""
    return [{k: clean_cell(v) for k, v in row.items()} for row in frame.to_dict("records")]


def clean_cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if value is pd.NaT:
        return None
    if isinstance(value, str):
        return value.strip()
    return value


def cycle_frame(
    history: Sequence[EvaluationCycleRecord], node_seconds: Mapping[int, Mapping[str, float]] | None = None
) -> pd.DataFrame:
    """The audit records as a table, one row per critique, with the seconds each cycle took (`node_seconds`:
    RunResult.metrics["node_seconds"], seconds per node for each cycle)."""
    node_seconds = node_seconds or {}
    rows = []
    for r in history:
        rows.append(
            {
                "cycle": r.cycle_number,
                "time (UTC)": r.timestamp.replace("T", " ").replace("+00:00", ""),
                "score": r.overall_score,
                "found": len(r.deficiencies_found),
                "resolved": len(r.deficiencies_resolved),
                **{label(s): r.status_counts.get(s, 0) for s in STATUSES},
                "queries": len(r.retrieval_queries_issued),
                "decisions": decision_words(r.decisions),
                "seconds": round(sum(node_seconds.get(r.cycle_number, {}).values()), 3),
                "engine": r.engine,
                "hash": r.record_hash[:12],
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------- sessions
def session_frame(sessions: Sequence[SessionSummary]) -> pd.DataFrame:
    """The session list as a table: status and outcome from each session's outcome (core.domain.outcome)."""
    return pd.DataFrame(
        [
            {
                "question": s.question,
                "status": s.outcome.badge,
                "score": s.quality_score,
                "termination": s.outcome.headline,
                "created (UTC)": s.created_at.replace("T", " ").replace("+00:00", ""),
                "engine": s.engine,
                "branched from": branch_text(s),
                "id": s.thread_id,
            }
            for s in sessions
        ],
        columns=["question", "status", "score", "termination", "created (UTC)", "engine", "branched from", "id"],
    )


def status_line(result: RunResult) -> str:
    """Where the session stands, in a few words."""
    if result.status == SessionStatus.completed:
        return f"finished after cycle {result.evaluation_cycle}: {result.outcome.badge}"
    if result.status == SessionStatus.awaiting_review:
        return f"paused for review at cycle {result.pending_review['cycle'] if result.pending_review else '?'}"
    return label(result.status)


# ------------------------------------------------------------------------------------------------ corpus
def citation_frame(result: RunResult) -> pd.DataFrame:
    """The cited sources with their status at the session's as-of date."""
    return pd.DataFrame(
        [
            {
                "document": c.doc_id,
                "title": c.title,
                "jurisdiction": c.jurisdiction,
                "status at as-of": label(c.status_at_as_of),
                "effective": c.effective,
                "citation": c.citation or "",
                "passages": ", ".join(c.passage_ids or c.chunk_ids),
            }
            for c in result.citations
        ],
        columns=["document", "title", "jurisdiction", "status at as-of", "effective", "citation", "passages"],
    )


def needs_metadata(name: str, content: bytes) -> bool:
    """Whether an upload carries no front matter, so the analyst must give its jurisdiction (and may give more)."""
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix in ("txt", "pdf"):
        return True
    if suffix in ("md", "markdown"):
        head = content[:8].decode("utf-8", errors="replace").lstrip("\ufeff")
        return not head.startswith("---")
    return False


def upload_defaults(row: Mapping[str, Any]) -> dict[str, Any]:
    """Metadata-form row -> ingest defaults (only the keys the analyst filled in)."""
    out: dict[str, Any] = {}
    for key in ("jurisdiction", "title", "status"):
        if row.get(key):
            out[key] = str(row[key]).strip()
    if row.get("effective") is not None:
        out["effective"] = str(row["effective"])[:10]
    return out


JURISDICTION_HELP = (
    "ISO 3166 code such as DE, US, GB or SG, a union such as EU, a subdivision such as US-NY or CA-QC, "
    "or your own code (INT); a country or subdivision name is turned into its code"
)
"""Help of the upload table's jurisdiction column: ISO codes first (GB, which UK also names)."""


def jurisdiction_hints(defaults: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per upload whose typed jurisdiction has an ISO 3166 (or union) code of its own: a name becomes
    that code (see `with_iso_codes`); a code alias such as UK is kept, and ISO's code is said beside it."""
    out = []
    for name, d in defaults.items():
        typed = str(d.get("jurisdiction") or "")
        code = iso_code(typed)
        if code and (typed.isupper() and len(typed) <= 3):
            place = country_name(code) or code
            out.append(f"{name}: {typed} is kept as typed; ISO 3166 writes {code}, and either code answers for {place}")
        elif code:
            out.append(f"{name}: {typed} is filed under its code {code}")
    return out


def with_iso_codes(defaults: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Upload defaults with a jurisdiction typed as a name (Germany, Quebec) replaced by its code (DE, CA-QC)."""
    out = {}
    for name, d in defaults.items():
        typed = str(d.get("jurisdiction") or "")
        code = iso_code(typed)
        named = code is not None and not (typed.isupper() and len(typed) <= 3)
        out[name] = {**d, "jurisdiction": code} if named else dict(d)
    return out
