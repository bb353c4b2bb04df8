"""The typed answer: sections per jurisdiction made of claims, each citing the passages that support it.

Engines, critics and the scorer work on these models; Markdown is rendered from them only at the edges (the
state keeps the rendered text for pages, exports and the audit record).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.domain.documents import Catalog
from core.domain.figures import dates, figures, format_date, periods
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
    """A plan item the corpus could not answer, said plainly in the answer."""

    model_config = ConfigDict(frozen=True)

    plan_item_id: str
    text: str


def gap_for(item: PlanItem, plan: ResearchPlan | None = None) -> Gap:
    """The plain statement of a plan item the corpus could not answer, made from what the item asks (its
    jurisdiction and aspect), never from the question's words."""
    planned = plan.jurisdiction(item.jurisdiction) if plan is not None else None
    name = planned.name if planned is not None else item.jurisdiction
    if item.jurisdiction == ANY_JURISDICTION:
        text = f"The corpus holds no source stating {item.aspect.asks}."
    elif item.answerable:
        text = f"The corpus holds no source stating {item.aspect.asks} for {name}."
    elif planned is not None and planned.via:
        text = (
            f"For {name}, the corpus holds {planned.via} sources, which apply there, but none of its own national law."
        )
    else:
        text = f"The corpus holds no source for {name}."
    return Gap(plan_item_id=item.id, text=text)


VERDICT_PART = re.compile(
    r"(?:^|(?<=[\s.;]))(?:\((?P<label>[^)]{1,12})\)\s*|(?P<code>[A-Z]{2,3}(?:-[A-Z0-9]{1,3})?):\s*|^)"
    r"(?P<word>Yes|No)\b(?=[.,;:])"
)
"""A verdict word at the start of the verdict or of one of its parts: "Yes.", "(2) No.", "EU: No, only ..."."""


def verdict_words(claim: Claim | None) -> dict[str, str]:
    """The verdicts a verdict claim states: {"*": "yes"} for a single one, {"EU": "no", "US": "yes"} for one per
    jurisdiction, {"1": ..., "2": ...} for one per part of the question."""
    if claim is None or claim.kind != "verdict":
        return {}
    out: dict[str, str] = {}
    for m in VERDICT_PART.finditer(claim.text):
        key = m.group("code") or m.group("label") or ANY_JURISDICTION
        if key == ANY_JURISDICTION and out:
            continue
        out.setdefault(key, m.group("word").lower())
    return out


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
        """Words of the answer's statements (disclosures aside: they say what is left, not what the law is)."""
        return sum(len(c.text.split()) for _, c in self.claims() if c.kind != "disclosure")


GAP_HEADING = "Not answered by the corpus"
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
    if answer.gaps:
        parts.append(f"## {GAP_HEADING}\n" + "\n".join(f"- {g.text}" for g in answer.gaps))
    return "\n\n".join(parts).strip()


def _line(claim: Claim, unverified: Collection[str]) -> str:
    marks = " ".join(f"[{d}]" for d in claim.doc_ids)
    lead = "History: " if claim.history else ""
    mark = f" {UNVERIFIED_MARK}" if claim.rests_on(unverified) else ""
    return f"{lead}{claim.text} {marks}".strip() + mark


TABLE_ASPECTS = (
    Aspect.scope,
    Aspect.threshold,
    Aspect.date,
    Aspect.deadline,
    Aspect.penalty,
    Aspect.recipient,
    Aspect.records,
    Aspect.exemption,
    Aspect.definition,
    Aspect.obligation,
)
CELL_WORDS = 20
"""A whole sentence up to this long may fill a cell; a longer one is pointed to, never cut."""
SECTION_REF = re.compile(r"\b(?:Art(?:icle)?s?\.?|Section|Sec\.|§|Rule|Regulation|Reg\.|Part)\s*\d+[\w.()/-]*", re.I)
COMPARATOR_WORDS = {">": "more than {}", ">=": "{} or more", "<=": "up to {}", "<": "less than {}"}


def comparison_table(answer: Answer, plan: ResearchPlan) -> str:
    """Jurisdiction x aspect table: each cell holds the figure, period, date or short rule of the first claim on
    that item, with its source ("25% or more (eu-amlr, Article 52)"), never a truncated sentence."""
    aspects = [a for a in TABLE_ASPECTS if any(i.aspect == a for i in plan.items)]
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
            cells.append(_cell(claim, aspect, code) if claim else "not found in the corpus")
        rows.append(f"| {code} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _cell(claim: Claim, aspect: Aspect, code: str) -> str:
    text = " ".join(claim.said.split())
    value = ""
    if aspect in (Aspect.threshold, Aspect.penalty):
        figs = [f for f in figures(text) if f.unit != "days"]
        # "from X to Y" states a change: the figure that applies is the one it goes to
        figs = [f for f in figs if not text[: text.find(f.text)].rstrip().lower().endswith("from")] or figs
        if figs:
            f = figs[0]
            value = COMPARATOR_WORDS.get(f.comparator or "", "{}").format(f.text)
    if not value and aspect in (Aspect.deadline, Aspect.records, Aspect.penalty):
        found = periods(text)
        value = found[0] if found else ""
    if not value and aspect in (Aspect.date, Aspect.deadline):
        found_dates = dates(text)
        value = format_date(found_dates[0]) if found_dates else ""
    if not value:
        first = next(iter(re.split(r"(?<=[.!?])\s+", text.strip())), "")
        value = first.rstrip(".") if len(first.split()) <= CELL_WORDS else f"see {code} below"
    ref = SECTION_REF.search(" ".join(q.quote for q in claim.citations) or text)
    source = ", ".join(x for x in (claim.doc_ids[0] if claim.doc_ids else "", ref.group(0) if ref else "") if x)
    return (f"{value} ({source})" if source else value).replace("|", "/")
