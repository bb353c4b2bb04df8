"""What every export says, as plain rows and answer blocks in words: the formats (core.export.markdown, .word,
.json) only lay them out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from core.domain.answer import Answer, claim_line, comparison_rows, gap_groups
from core.domain.audit import NO_SNAPSHOT, chain_head
from core.domain.clock import utc_now
from core.domain.outcome import Outcome, SessionStatus
from core.domain.plan import ResearchPlan
from core.domain.records import Deficiency, HumanActRecord, ResolutionStatus
from core.domain.results import RunResult
from core.domain.wording import act_words, action_words, plural, words
from core.loop.deps import names_of, source_names

Row = list[str]
NO_RESIDUALS = "None: every deficiency found was resolved."
NOTHING_FOUND = "None: no deficiency was found."
NO_ACTS = "No human act recorded."
NO_STRUCK = "No claim was struck."
NO_ANSWER = "No answer has been drafted yet."
SETTINGS_MISSING = f"Settings: {NO_SNAPSHOT}."

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
ACT_HEADER: Row = ["When", "Who", "Act", "Deficiency or claim", "Cycle", "What changed", "Why"]
STRUCK_HEADER: Row = ["Claim", "Section", "Struck claim", "Why", "Struck by", "When"]
SETTINGS_HEADER: Row = ["Setting", "Value"]


@dataclass
class Export:
    """One export being made: the session, the audit verdict, who exports and when, and the session's outcome."""

    result: RunResult
    audit_ok: bool
    audit_message: str
    exported_by: str = "local"
    exported_at: str = field(default_factory=utc_now)

    @property
    def outcome(self) -> Outcome:
        """The session's outcome (core.domain.outcome), as every page shows it."""
        return self.result.outcome

    @property
    def finished(self) -> bool:
        """Whether the session has finished (else the export is provisional)."""
        return self.result.status == SessionStatus.completed


@dataclass
class Block:
    """One piece of the answer: a heading, a paragraph, a bulleted list or a table (header row first)."""

    kind: Literal["heading", "paragraph", "bullets", "table"]
    text: str = ""
    items: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)


def provisional_notice(e: Export) -> str:
    return (
        f"This session has not finished (status: {e.outcome.badge}). "
        "The answer below is provisional and may still change."
    )


def score(value: float | None) -> str:
    return "not scored" if value is None else f"{value:.2f}"


def termination(e: Export) -> str:
    """Why the loop stopped, in words (the code is in the JSON export only)."""
    return e.outcome.reason or "The loop has not finished."


def no_residuals(e: Export) -> str:
    """What the residual section says when nothing is left: nothing was found, or everything was resolved."""
    return NOTHING_FOUND if not e.outcome.counts.found else NO_RESIDUALS


def audit_lines(e: Export) -> list[str]:
    """The verdict, what it covers and the chain's head hash."""
    verdict = "verified" if e.audit_ok else "FAILED, the records may have been altered"
    head = chain_head(e.result.audit_records) or "none"
    return [
        f"Audit chain check: {verdict}. {e.audit_message}",
        f"Verification covers all records: {len(e.result.evaluation_history)} cycle records and "
        f"{len(e.result.human_acts)} human acts in one chain.",
        f"Chain head: {head}",
    ]


def metadata_rows(e: Export) -> list[Row]:
    r, o = e.result, e.outcome
    return [
        ["Question", r.question],
        ["As-of date", r.as_of.isoformat() if r.as_of else "not set"],
        ["Status", o.badge],
        ["Outcome", o.headline],
        ["Deficiencies", o.counts.line()],
        ["Engine", r.engine],
        ["Written by", r.written_by or "not recorded"],
        ["Quality score", score(r.quality_score)],
        ["Cycle", f"{r.evaluation_cycle} of {r.max_evaluation_cycles}"],
        ["Termination reason", termination(e)],
        ["Session", r.thread_id],
        ["Started by", r.started_by or r.user_id],
        ["Exported by", e.exported_by],
        ["Exported at", e.exported_at],
    ]


def why_unresolved(d: Deficiency, *, finished: bool) -> str:
    """Why a residual deficiency is still there, from its resolution status and annotations."""
    attempts = d.resolution_attempt_count
    match d.resolution_status:
        case ResolutionStatus.dismissed:
            reason = f"dismissed by the analyst ({d.analyst_note or 'no note given'})"
        case ResolutionStatus.unresolvable if attempts == 0:
            reason = "unresolvable: the critic found that no correction retrieval can fix it"
        case ResolutionStatus.unresolvable:
            reason = f"unresolvable after {plural(attempts, 'attempt')}"
        case ResolutionStatus.open:
            reason = "still open when the loop stopped" if finished else "still open: the loop has not finished"
        case ResolutionStatus.addressed if d.origin == "analyst":
            reason = "its correction ran; waiting for the analyst who added it to confirm it is resolved"
        case ResolutionStatus.addressed:
            reason = "addressed: a correction was retrieved but not yet re-checked"
        case _:
            reason = words(d.resolution_status.value)
    if d.analyst_note and d.resolution_status != ResolutionStatus.dismissed:
        reason += f"; analyst note: {d.analyst_note}"
    if d.accepted_risk:
        reason += "; risk accepted by the analyst"
    return reason


def residual_rows(e: Export) -> list[Row]:
    ordered = sorted(e.result.residual_deficiencies, key=lambda d: -d.severity.rank)
    return [
        [
            d.id,
            d.severity.value,
            words(d.deficiency_type.value),
            d.subject,
            d.description,
            why_unresolved(d, finished=e.finished),
        ]
        for d in ordered
    ]


def citation_rows(e: Export) -> list[Row]:
    return [
        [
            c.doc_id,
            c.title,
            c.jurisdiction,
            c.citation or "",
            words(c.declared_status),
            words(c.status_at_as_of),
            c.effective.isoformat() if c.effective else "unknown",
            ", ".join(c.passage_ids or c.chunk_ids),
        ]
        for c in e.result.citations
    ]


def _ids(ids: tuple[str, ...]) -> str:
    return f"{len(ids)} ({', '.join(ids)})" if ids else "0"


def cycle_rows(e: Export) -> list[Row]:
    rows = []
    for r in e.result.evaluation_history:
        decisions = "; ".join(
            f"{x.deficiency_id}: {action_words(x.action)}{' by policy' if x.automatic else ''} by {x.decided_by}"
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


def change(a: HumanActRecord) -> str:
    """What an act changed, in words: the decision taken, the row added, the claim struck, or old -> new."""
    if a.kind == "decision":
        return action_words(a.new)
    if a.kind == "added":
        return f"added {a.new}"
    if a.kind == "strike":
        return f"struck: {a.old}"
    old, new = (words(v) if a.field == "status" else v for v in (a.old, a.new))
    return f"{words(a.field)}: {old or '(empty)'} -> {new or '(empty)'}"


def act_rows(e: Export) -> list[Row]:
    return [
        [a.at, a.actor, act_words(a.kind), a.deficiency_id, str(a.cycle), change(a), a.reason]
        for a in e.result.human_acts
    ]


def struck_rows(e: Export) -> list[Row]:
    answer = e.result.answer
    return [[s.id, s.jurisdiction, s.claim.text, s.reason, s.by, s.at] for s in (answer.struck if answer else ())]


def settings_rows(e: Export) -> list[Row]:
    return e.result.settings.rows() if e.result.settings else []


def answer_blocks(e: Export) -> list[Block]:
    """The answer as blocks, from the typed answer (verdict, comparison table, one section per jurisdiction with
    its claims as a list and its sources, the items the corpus could not answer); a session without a typed
    answer gives its text line by line."""
    r = e.result
    if r.answer is not None and (r.answer.claims() or r.answer.gaps):
        return typed_blocks(r.answer, r.plan, source_names(r.citations))
    blocks: list[Block] = []
    for line in (line.strip() for line in r.current_answer.split("\n")):
        if line.startswith("#"):
            blocks.append(Block("heading", line.lstrip("#").strip()))
        elif line.startswith("- ") and blocks and blocks[-1].kind == "bullets":
            blocks[-1].items.append(line[2:])
        elif line.startswith("- "):
            blocks.append(Block("bullets", items=[line[2:]]))
        elif line:
            blocks.append(Block("paragraph", line))
    return blocks


def typed_blocks(answer: Answer, plan: ResearchPlan | None, sources: dict[str, str]) -> list[Block]:
    """The blocks of a typed answer, in the order `core.domain.answer.render_markdown` writes them."""
    names = names_of(plan)
    flagged = answer.unverified_doc_ids
    blocks: list[Block] = []
    if answer.verdict is not None:
        blocks.append(Block("paragraph", f"Short answer: {claim_line(answer.verdict, flagged)}"))
    table = comparison_rows(answer, plan) if plan is not None and plan.comparison else []
    if table:
        blocks.append(Block("table", rows=table))
    for section in answer.sections:
        if not section.claims:
            continue
        name = names.get(section.jurisdiction)
        blocks.append(
            Block("heading", section.jurisdiction + (f" ({name})" if name and name != section.jurisdiction else ""))
        )
        blocks.append(Block("bullets", items=[claim_line(c, flagged) for c in section.claims]))
        named = [sources[d] for d in dict.fromkeys(d for c in section.claims for d in c.doc_ids) if d in sources]
        if named:
            blocks.append(Block("paragraph", "Sources: " + "; ".join(named) + "."))
    for heading, gaps in gap_groups(answer):
        blocks.append(Block("heading", heading))
        blocks.append(Block("bullets", items=[g.text for g in gaps]))
    return blocks
