"""The deficiency board as data: board rows and columns, what an edited board changes (decisions, severity, query,
note, dismissals, added rows), the counters with staged edits, and the resume payload (the review cards: ui/cards.py).
Pure: no Streamlit, so the rules are tested without a page."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from core.domain.deficiencies import analyst_action, analyst_choices
from core.domain.records import Deficiency, ResolutionStatus
from core.service import RunResult
from ui.frames import SEVERITIES, STATUSES, TYPES, label
from ui.tables import WRAP_ROW_HEIGHT

BOARD_COLUMNS: tuple[str, ...] = (
    "id",
    "type",
    "subject",
    "section",
    "description",
    "severity",
    "status",
    "decision",
    "attempts",
    "correction query",
    "origin",
    "first seen",
    "note",
    "accepted risk",
)
PAUSED_ORDER: tuple[str, ...] = (
    "subject",
    "type",
    "section",
    "decision",
    "description",
    "severity",
    "correction query",
    "note",
    "status",
    "attempts",
    "id",
)
FINISHED_ORDER: tuple[str, ...] = (
    "subject",
    "type",
    "severity",
    "status",
    "note",
    "accepted risk",
    "description",
    "correction query",
    "attempts",
    "origin",
    "first seen",
    "id",
)
"""Column order on screen: the (pinned) subject, then what the analyst may edit; while paused the columns an added
row needs (type, section) come right after the subject."""
ROW_HEIGHT = WRAP_ROW_HEIGHT
"""Tall enough for the grid to wrap text, so a description reads in three lines."""
LOCKED_COLUMNS: tuple[str, ...] = ("type", "subject", "section", "description")
"""The critic's own words: editable only on rows the analyst adds."""
APPROVE = "approve"
DECISIONS: tuple[str, ...] = (
    APPROVE,
    *dict.fromkeys(c.value for s in ResolutionStatus for c in analyst_choices(s) if c != s),
)
"""What the paused board's decision column offers: approve a proposal, or a status an analyst may set (the
lifecycle table's analyst moves; never a status only the loop sets). Each row is checked against its own moves."""


def section_options(result: RunResult) -> list[str]:
    """The answer sections an analyst-added deficiency can belong to: the jurisdictions the plan asks about and
    the answer's own sections, in the plan's order."""
    codes = [j.code for j in result.plan.jurisdictions] if result.plan is not None else []
    if result.answer is not None:
        codes += [s.jurisdiction for s in result.answer.sections]
    return list(dict.fromkeys(codes))


def board_rows(deficiencies: Iterable[Deficiency]) -> list[dict[str, Any]]:
    """One row per deficiency, in the board's column order (most severe and still open first)."""
    order = {s: i for i, s in enumerate(("open", "addressed", "unresolvable", "dismissed", "resolved"))}
    items = sorted(deficiencies, key=lambda d: (order.get(d.resolution_status.value, 9), -d.severity.rank, d.id))
    return [
        {
            "id": d.id,
            "type": d.deficiency_type.value,
            "subject": d.subject,
            "section": d.affected_section or None,
            "description": d.description,
            "severity": d.severity.value,
            "status": d.resolution_status.value,
            "decision": None,
            "attempts": d.resolution_attempt_count,
            "correction query": d.suggested_correction_query,
            "origin": d.origin,
            "first seen": d.identified_at_cycle,
            "note": d.analyst_note,
            "accepted risk": d.accepted_risk,
        }
        for d in items
    ]


def board_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The board rows as a DataFrame with every column present, even when empty."""
    return pd.DataFrame(list(rows), columns=list(BOARD_COLUMNS))


@dataclass
class BoardChanges:
    """Board edits made while paused, in the shape of the review payload, plus what could not be taken."""

    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    added: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    undecided: dict[str, dict[str, Any]] = field(default_factory=dict)
    """This review's proposals without an explicit decision on the board, with the board's edits of each (a
    decision on the Research page's card takes their severity)."""

    def __bool__(self) -> bool:
        return bool(self.decisions or self.added or any(self.undecided.values()))

    def summary(self) -> list[str]:
        """One line per staged change, for the screen."""
        lines = []
        edited = [(did, dec, "") for did, dec in self.decisions.items()]
        edited += [(did, dec, " (no decision yet)") for did, dec in self.undecided.items() if dec]
        for did, dec, undecided in edited:
            parts = []
            if dec.get("action") == "reject":
                parts.append("dismiss")
            if dec.get("action") == "edit":
                parts.append(f"query → {dec['query']}")
            if dec.get("severity"):
                parts.append(f"severity → {dec['severity']}")
            if dec.get("note"):
                parts.append(f"note: {dec['note']}")
            lines.append(f"{did}: {'; '.join(parts) or 'approve'}{undecided}")
        lines.extend(added_line(a) for a in self.added)
        return lines


def added_line(added: Mapping[str, Any]) -> str:
    """An added deficiency in words: `new deficiency: insufficient specificity in section GB (medium): <subject>`."""
    kind = label(str(added["deficiency_type"]))
    section = f" in section {added['affected_section']}" if added.get("affected_section") else ""
    return f"new deficiency: {kind}{section} ({added.get('severity') or 'medium'}): {added['subject']}"


def paused_changes(
    deficiencies: Iterable[Deficiency], rows: Sequence[Mapping[str, Any]], pending_ids: Iterable[str]
) -> BoardChanges:
    """Compare the edited board with the stored deficiencies: decisions, severity, query, note, dismissals, added
    rows. A proposal of this review counts as decided only with an explicit decision (approve or a status)."""
    by_id = {d.id: d for d in deficiencies}
    pending = set(pending_ids)
    out = BoardChanges()
    for n, row in enumerate(rows, start=1):
        did = row.get("id")
        if not did:
            _added_row(n, row, out)
            continue
        d = by_id.get(did)
        if d is None:
            out.problems.append(f"{did}: not in this session; the row is ignored")
            continue
        _edited_row(d, row, did in pending, out)
    return out


def _edited_row(d: Deficiency, row: Mapping[str, Any], pending: bool, out: BoardChanges) -> None:
    locked = [c for c in LOCKED_COLUMNS if (row.get(c) or "") != _original(d, c)]
    if locked:
        out.problems.append(
            f"{d.id}: {', '.join(locked)} come from the critic and stay as found; the change is ignored"
        )
    chosen = row.get("decision")
    if chosen == APPROVE and not pending:
        out.problems.append(f"{d.id}: only this review's proposals can be approved; the decision is ignored")
        chosen = None
    status = chosen if chosen in STATUSES else (row.get("status") or d.resolution_status.value)
    if not pending and d.resolution_status == ResolutionStatus.open:
        if _differs(d, row):
            out.problems.append(f"{d.id}: decided by the approval policy in this review; the change is ignored")
        return
    severity = row.get("severity") or d.severity.value
    query = row.get("correction query") or d.suggested_correction_query
    note = row.get("note") or ""
    decision: dict[str, Any] = {}
    if severity != d.severity.value:
        decision["severity"] = severity
    if note != d.analyst_note:
        decision["note"] = note
    if status != d.resolution_status.value:
        action = analyst_action(d.resolution_status, ResolutionStatus(status)) if status in STATUSES else None
        if action is None:
            choices = " or ".join(s.value for s in analyst_choices(d.resolution_status))
            out.problems.append(
                f"{d.id}: a {d.resolution_status.value} deficiency can only be {choices} here; "
                "the loop sets the other statuses"
            )
        else:
            out.decisions[d.id] = {"action": action, **decision, "note": note or f"{status} on the board"}
            return
    if query != d.suggested_correction_query:
        if pending:
            decision.update(action="edit", query=query)
        else:
            out.problems.append(
                f"{d.id}: the query of a {d.resolution_status.value} deficiency is not run; the change is ignored"
            )
    if pending and chosen != APPROVE:
        out.undecided[d.id] = decision
        return
    if d.resolution_status == ResolutionStatus.resolved and decision:
        out.problems.append(f"{d.id}: resolved deficiencies are not changed while paused; annotate after the run")
        return
    if decision or pending:
        decision.setdefault("action", "approve")
        out.decisions[d.id] = decision


def _differs(d: Deficiency, row: Mapping[str, Any]) -> bool:
    """Whether the row changes anything the analyst may edit while paused."""
    return (
        bool(row.get("decision"))
        or (row.get("status") or d.resolution_status.value) != d.resolution_status.value
        or (row.get("severity") or d.severity.value) != d.severity.value
        or (row.get("correction query") or d.suggested_correction_query) != d.suggested_correction_query
        or (row.get("note") or "") != d.analyst_note
    )


def _original(d: Deficiency, column: str) -> str:
    return {
        "type": d.deficiency_type.value,
        "subject": d.subject,
        "section": d.affected_section,
        "description": d.description,
    }[column]


def _added_row(n: int, row: Mapping[str, Any], out: BoardChanges) -> None:
    columns = {
        "deficiency_type": "type",
        "subject": "subject",
        "affected_section": "section",
        "description": "description",
        "suggested_correction_query": "correction query",
    }
    values = {field: row.get(column) for field, column in columns.items()}
    if not any(values.values()) and not row.get("note"):
        return
    missing = [columns[field] for field, value in values.items() if not value]
    if missing:
        out.problems.append(f"new row {n}: needs {', '.join(missing)}; it is not sent until complete")
        return
    if values["deficiency_type"] not in TYPES:
        out.problems.append(f"new row {n}: type must be one of {', '.join(TYPES)}")
        return
    severity = row.get("severity") if row.get("severity") in SEVERITIES else "medium"
    out.added.append({**values, "severity": severity, "note": row.get("note") or ""})


def added_row(row: Mapping[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """One deficiency the analyst adds (from the "Add deficiency" form, in board columns) as the fields of an
    AnalystDeficiency, or what it still needs."""
    out = BoardChanges()
    _added_row(1, {**row, "note": row.get("note") or " "}, out)  # an empty form says what it needs, too
    added = [{**a, "note": a["note"].strip()} for a in out.added]
    return (added[0] if added else None), [p.removeprefix("new row 1: ") for p in out.problems]


def board_counts(rows: Sequence[Mapping[str, Any]], changes: BoardChanges) -> dict[str, int]:
    """Deficiencies per status as the board's staged edits would leave them: dismissals moved, added rows open."""
    counts = dict.fromkeys(STATUSES, 0)
    for r in rows:
        if r.get("id") and r.get("status") in counts:
            rejected = changes.decisions.get(r["id"], {}).get("action") == "reject"
            counts[ResolutionStatus.dismissed.value if rejected else r["status"]] += 1
    counts[ResolutionStatus.open.value] += len(changes.added)
    return counts


def undecided_line(undecided: int, total: int, what: str) -> str:
    """`3 of 5 cards undecided`, or that every one is decided."""
    if not undecided:
        return f"All {total} {what} decided."
    return f"{undecided} of {total} {what} undecided"


def review_payload(
    proposals: Sequence[Mapping[str, Any]],
    cards: Mapping[str, Mapping[str, Any]],
    board: BoardChanges,
    reviewer: str,
    *,
    cycle: int,
    stop: bool = False,
) -> dict[str, Any]:
    """The resume payload for the review of `cycle` (the service refuses it for any other review): a card that
    differs from "approve as proposed" wins, else the board's edit for that proposal, else approve; the board's
    severity edits, other deficiencies' edits and added rows ride along."""
    decisions: dict[str, dict[str, Any]] = {}
    for p in proposals:
        card = dict(cards.get(p["id"]) or {"action": "approve"})
        staged = board.decisions.get(p["id"], {})
        chosen = card if card["action"] != "approve" or card.get("note") or not staged else dict(staged)
        severity = staged.get("severity") or board.undecided.get(p["id"], {}).get("severity")
        if severity:
            chosen["severity"] = severity
        decisions[p["id"]] = chosen
    for did, staged in board.decisions.items():
        decisions.setdefault(did, dict(staged))
    return {"cycle": cycle, "decisions": decisions, "added": list(board.added), "stop": stop, "reviewer": reviewer}


def annotation_changes(deficiencies: Iterable[Deficiency], rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """After a run: per changed row, the note / accepted risk / severity to record with `annotate`."""
    by_id = {d.id: d for d in deficiencies}
    out = []
    for row in rows:
        d = by_id.get(row.get("id") or "")
        if d is None:
            continue
        change: dict[str, Any] = {}
        if (row.get("note") or "") != d.analyst_note:
            change["note"] = row.get("note") or ""
        if bool(row.get("accepted risk")) != d.accepted_risk:
            change["accepted_risk"] = bool(row.get("accepted risk"))
        if (row.get("severity") or d.severity.value) != d.severity.value:
            change["severity"] = row.get("severity")
        if change:
            out.append({"id": d.id, **change})
    return out
