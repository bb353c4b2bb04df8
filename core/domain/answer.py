"""The typed answer: sections per jurisdiction made of claims, each citing the passages that support it.

Engines, critics and the scorer work on these models; Markdown is rendered from them only at the edges (the
state keeps the rendered text for pages, exports and the audit record).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.domain.documents import Catalog
from core.domain.plan import ANY_JURISDICTION, Aspect, PlanItem, ResearchPlan

ClaimKind = Literal["finding", "verdict", "applicability", "disclosure"]
VERDICT_WORD = re.compile(r"^(?:yes|no)\.\s*", re.I)
UNVERIFIED_MARK = "(unverified upload)"
"""Written after the citations of a claim whose every source is an upload no analyst has verified."""


class Quote(BaseModel):
    """A citation of one passage: the document, the chunk and the sentence of it that supports the claim."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    chunk_id: str
    quote: str


class Claim(BaseModel):
    """One statement of the answer, the plan items it answers and its supporting passages."""

    model_config = ConfigDict(frozen=True)

    text: str
    plan_item_ids: tuple[str, ...] = ()
    citations: tuple[Quote, ...] = ()
    kind: ClaimKind = "finding"
    history: bool = False
    """States what an instrument that no longer applies said (the question asked about it)."""
    written_by: str = ""
    """The drafter that wrote this claim when it is not the run's engine (hybrid: the offline drafter answering
    an item the model's draft left out); '' otherwise."""

    @property
    def said(self) -> str:
        """What the claim itself asserts: a verdict without its leading "Yes."/"No."."""
        return VERDICT_WORD.sub("", self.text) if self.kind == "verdict" else self.text

    @property
    def doc_ids(self) -> tuple[str, ...]:
        """Cited documents, in order, without repeats."""
        return tuple(dict.fromkeys(q.doc_id for q in self.citations))

    def rests_on(self, unverified: Collection[str]) -> bool:
        """Whether the claim cites sources and every one of them is in `unverified`."""
        return bool(self.citations) and all(d in unverified for d in self.doc_ids)


class AnswerSection(BaseModel):
    """The claims about one jurisdiction."""

    model_config = ConfigDict(frozen=True)

    jurisdiction: str
    claims: tuple[Claim, ...] = ()


class Gap(BaseModel):
    """A plan item the answer leaves open, said plainly: the corpus could not answer it, or (with `retrieved`)
    passages were found for it but the draft does not answer it."""

    model_config = ConfigDict(frozen=True)

    plan_item_id: str
    text: str
    retrieved: tuple[str, ...] = ()
    """The chunk ids retrieved for the item, when the corpus had passages the draft did not use."""


def gap_for(item: PlanItem, retrieved: Sequence[str] = ()) -> Gap:
    """The plain statement of a plan item left open: not in the corpus, or (passages retrieved) not answered by
    the draft, naming the passages found, so the corpus is not blamed for what the draft left out."""
    if retrieved:
        found = ", ".join(dict.fromkeys(retrieved))
        return Gap(
            plan_item_id=item.id,
            text=f"The draft does not answer {item.ask}; passages retrieved for it: {found}.",
            retrieved=tuple(dict.fromkeys(retrieved)),
        )
    return Gap(plan_item_id=item.id, text=f"The corpus holds no source on {item.ask}.")


Located = tuple[str, Claim]
"""A claim with the jurisdiction of its section (the verdict's is ANY_JURISDICTION)."""


class Answer(BaseModel):
    """The whole answer: an optional verdict, sections per jurisdiction and the gaps."""

    model_config = ConfigDict(frozen=True)

    verdict: Claim | None = None
    sections: tuple[AnswerSection, ...] = ()
    gaps: tuple[Gap, ...] = ()
    unverified_doc_ids: tuple[str, ...] = ()
    """Cited documents that were unverified uploads when the answer was drafted (see `with_unverified`)."""

    def claims(self) -> list[Located]:
        """Every claim with its section's jurisdiction (the verdict under "*")."""
        out: list[Located] = [(ANY_JURISDICTION, self.verdict)] if self.verdict else []
        return out + [(s.jurisdiction, c) for s in self.sections for c in s.claims]

    def section(self, code: str) -> AnswerSection | None:
        """The section of one jurisdiction, or None."""
        return next((s for s in self.sections if s.jurisdiction == code), None)

    def cited_doc_ids(self) -> list[str]:
        """Every cited document, in order of first citation."""
        return list(dict.fromkeys(d for _, c in self.claims() for d in c.doc_ids))

    def with_claims(self, code: str, claims: Iterable[Claim]) -> Answer:
        """A copy with the section of `code` holding `claims` (the section is added when new, dropped when empty)."""
        claims = tuple(claims)
        sections = [s for s in self.sections if s.jurisdiction != code]
        if claims:
            position = next((i for i, s in enumerate(self.sections) if s.jurisdiction == code), len(sections))
            sections.insert(position, AnswerSection(jurisdiction=code, claims=claims))
        return self.model_copy(update={"sections": tuple(sections)})

    def with_unverified(self, catalog: Catalog) -> Answer:
        """A copy noting which cited documents the catalog holds as unverified uploads, so the rendering marks
        the claims that rest only on them."""
        ids = tuple(
            d for d in self.cited_doc_ids() if (doc := catalog.get(d)) is not None and doc.provenance.unverified_upload
        )
        return self.model_copy(update={"unverified_doc_ids": ids})

    def body_text(self) -> str:
        """The answer's own statements as plain text (no gaps, no disclosure), for fact coverage and word counts."""
        return "\n".join(c.text for _, c in self.claims())

    def word_count(self) -> int:
        """Words of the answer's statements."""
        return len(self.body_text().split())


GAP_HEADING = "Not answered by the corpus"
DRAFT_GAP_HEADING = "Not answered by the draft"
RESIDUAL_HEADING = "Residual deficiencies (not resolved)"
"""Heading of the disclosure of what the loop left unresolved, in the final answer and every export."""


def render_markdown(
    answer: Answer,
    plan: ResearchPlan | None = None,
    names: dict[str, str] | None = None,
    sources: dict[str, str] | None = None,
    unverified: Collection[str] | None = None,
) -> str:
    """The answer as Markdown: verdict first, a comparison table when the question compares, one `## CODE` section
    per jurisdiction with `[doc-id]` citations after each claim and a line naming its sources (`sources`: doc id ->
    how to name it, e.g. its citation and status at the as-of date), then the items the corpus could not answer.

    A claim whose every source is in `unverified` (default: the answer's `unverified_doc_ids`) is followed by
    UNVERIFIED_MARK, so neither the page nor an export presents it as resting on vetted sources."""
    names = names or {}
    sources = sources or {}
    flagged = set(answer.unverified_doc_ids if unverified is None else unverified)
    parts: list[str] = []
    if answer.verdict is not None:
        parts.append(f"Short answer: {_line(answer.verdict, flagged)}")
    if plan is not None and plan.comparison:
        table = comparison_table(answer, plan)
        if table:
            parts.append(table)
    for section in answer.sections:
        if not section.claims:
            continue
        name = names.get(section.jurisdiction)
        heading = f"## {section.jurisdiction}" + (f" ({name})" if name and name != section.jurisdiction else "")
        body = heading + "\n" + "\n".join(_line(c, flagged) for c in section.claims)
        named = [sources[d] for d in dict.fromkeys(d for c in section.claims for d in c.doc_ids) if d in sources]
        if named:
            body += "\n\nSources: " + "; ".join(named) + "."
        parts.append(body)
    for heading, gaps in (
        (DRAFT_GAP_HEADING, [g for g in answer.gaps if g.retrieved]),
        (GAP_HEADING, [g for g in answer.gaps if not g.retrieved]),
    ):
        if gaps:
            parts.append(f"## {heading}\n" + "\n".join(f"- {g.text}" for g in gaps))
    return "\n\n".join(parts).strip()


def _line(claim: Claim, unverified: Collection[str]) -> str:
    marks = " ".join(f"[{d}]" for d in claim.doc_ids)
    lead = "History: " if claim.history else ""
    mark = f" {UNVERIFIED_MARK}" if claim.rests_on(unverified) else ""
    by = f" (written by the {claim.written_by} drafter)" if claim.written_by else ""
    return f"{lead}{claim.text} {marks}".strip() + mark + by


def comparison_table(answer: Answer, plan: ResearchPlan) -> str:
    """Jurisdiction x aspect table of the first claim per cell, shortened to its figures or opening words."""
    aspects = [
        a
        for a in (Aspect.scope, Aspect.threshold, Aspect.date, Aspect.exemption, Aspect.definition, Aspect.obligation)
        if any(i.aspect == a for i in plan.items)
    ]
    codes = [s.jurisdiction for s in answer.sections if s.claims]
    if len(codes) < 2 or not aspects:
        return ""
    rows = ["| jurisdiction | " + " | ".join(a.label for a in aspects) + " |", "|---|" + "---|" * len(aspects)]
    for code in codes:
        section = answer.section(code)
        cells = []
        for aspect in aspects:
            wanted = f"{code}:{aspect.value}"
            claim = next((c for c in section.claims if wanted in c.plan_item_ids), None) if section else None
            cells.append(_cell(claim.text) if claim else "not found in the corpus")
        rows.append(f"| {code} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _cell(text: str, words: int = 14) -> str:
    parts = text.replace("|", "/").split()
    return " ".join(parts[:words]) + (" ..." if len(parts) > words else "")
