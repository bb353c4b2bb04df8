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

from core.domain.records import DeficiencyType, EvaluationCycleRecord, ResolutionStatus, Severity
from core.domain.safe_markdown import answer_markdown as safe_answer_markdown
from core.service import REASON_CODES, RunResult, SessionSummary, reason_label
from ui.tables import branch_text, decision_words

SEVERITIES: tuple[str, ...] = tuple(s.value for s in Severity)
STATUSES: tuple[str, ...] = tuple(s.value for s in ResolutionStatus)
TYPES: tuple[str, ...] = tuple(t.value for t in DeficiencyType)
SEVERITY_COLORS: dict[str, str] = {"low": "gray", "medium": "blue", "high": "orange", "critical": "red"}


def label(value: str) -> str:
    """The one on-screen wording of a type, status or stop reason: `missing_jurisdiction` -> `missing
    jurisdiction`, `only_unresolvable_remaining` -> `only dismissed or unresolvable deficiencies remain`."""
    return reason_label(value) if value in REASON_CODES or value.startswith("degraded_") else value.replace("_", " ")


def answer_markdown(answer: str) -> str:
    """An answer for display: inert text, one paragraph per line, section headings two levels down (below the
    page's own)."""
    return safe_answer_markdown(answer, heading_shift=2)


def severity_badge(severity: str) -> str:
    """A fixed-markup Streamlit badge for a severity value."""
    return f":{SEVERITY_COLORS.get(severity, 'gray')}-badge[{severity if severity in SEVERITY_COLORS else '?'}]"


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
    """The session list as a table."""
    return pd.DataFrame(
        [
            {
                "question": s.question,
                "status": label(s.status),
                "score": s.quality_score,
                "termination": s.termination_text,
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
    if result.status == "completed":
        return f"finished after cycle {result.evaluation_cycle}: {reason_label(result.termination_reason)}"
    if result.status == "awaiting_review":
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
