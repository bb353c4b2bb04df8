"""The typed answer: sections per jurisdiction made of claims, each citing the passages that support it.

Engines, critics and the scorer work on these models; Markdown is rendered from them only at the edges (the
state keeps the rendered text for pages, exports and the audit record).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.domain.documents import Catalog
from core.domain.figures import date_spans, dates, figures, format_date, periods
from core.domain.gazetteer import jurisdiction_name, names_listed, own_law, same_jurisdiction
from core.domain.plan import ANY_JURISDICTION, Aspect, PlanItem, ResearchPlan, item_id

ClaimKind = Literal["finding", "verdict", "applicability", "disclosure"]
VERDICT_WORD = re.compile(
    r"^(?:yes|no)(?:\.|, from [^:.]{1,60} sources:|, for the [^:]{1,60} the question states:)\s*", re.I
)
"""The verdict word that opens a verdict, with the law it rests on when that is not the asked place's own ("Yes,
from United States sources: ...", see `sourced_verdict`) or the facts it is applied to ("Yes, for the 120
employees the question states: ...", see `counted_verdict`): not part of what the claim asserts."""


def sourced_verdict(word: str, where: str, said: str) -> str:
    """A verdict's text naming the jurisdiction whose sources it rests on ("Yes, from United States sources: ...")."""
    return f"{word}, from {where} sources: {said}"


def counted_verdict(word: str, count: str, said: str) -> str:
    """A verdict's text naming the count of the question's facts it applies the quoted rule to ("Yes, for the 120
    employees the question states: ...")."""
    return f"{word}, for the {count} the question states: {said}"


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
    struck_by: str = ""
    """Who struck the claim that answered the item, when that is why it is open."""
    unverified: tuple[str, ...] = ()
    """The uploads no analyst has verified that alone state the item, when that is why it counts as open."""
    no_verdict: bool = False
    """The direct yes or no the draft does not give (none is applied to the facts a question sets out, and none
    is guessed where no passage speaks to the question as asked): the draft's gap, not the corpus'."""


def item_asks(item: PlanItem, plan: ResearchPlan | None = None) -> str:
    """What the item asks, as the object of a sentence ("the deadlines and time limits for Canada")."""
    if item.jurisdiction == ANY_JURISDICTION:
        return item.aspect.asks
    planned = plan.jurisdiction(item.jurisdiction) if plan is not None else None
    return f"{item.aspect.asks} for {planned.name if planned is not None else jurisdiction_name(item.jurisdiction)}"


NO_SOURCE_LEAD = "The corpus holds no source stating"
"""How a gap line opens for an item the corpus holds nothing on; `gap_groups` joins one place's such lines."""


def gap_for(
    item: PlanItem,
    plan: ResearchPlan | None = None,
    retrieved: Sequence[str] = (),
    struck: tuple[str, str] | None = None,
    unverified: Sequence[str] = (),
    quoted: bool | None = None,
) -> Gap:
    """The plain statement of a plan item left open, made from what the item asks (its jurisdiction and aspect),
    never from the question's words: not in the corpus, (passages retrieved) not answered by the draft, naming
    the passages found, (`struck`: who, why) no longer answered since a person struck its claim, or (`unverified`:
    document ids) stated only by uploads no analyst has verified, or (a verdict item) a yes or no the draft does not
    give, on facts the question sets out (`ResearchPlan.verdict_on_facts`) or at all (`quoted`: whether the answer
    quotes any source, by default whether the item could be searched for); so the corpus is not blamed
    for what the draft left out or an analyst took out, and an answer that states the item does not sit beside
    "no source"."""
    planned = plan.jurisdiction(item.jurisdiction) if plan is not None else None
    name = planned.name if planned is not None else jurisdiction_name(item.jurisdiction)
    what = item_asks(item, plan)
    if struck is not None:
        by, why = struck
        return Gap(
            plan_item_id=item.id,
            text=f"{by} struck the claim stating {what} ({why.rstrip('.')}); no other claim states it.",
            struck_by=by,
        )
    if item.aspect == Aspect.verdict and not unverified:
        on_facts = plan is not None and plan.verdict_on_facts
        figured = plan is not None and bool(figures(plan.question) or periods(plan.question))
        if not (item.answerable if quoted is None else quoted):
            return Gap(
                plan_item_id=item.id,
                text="No direct yes or no: no passage found states one for the question as asked, and the answer "
                "quotes no source.",
                retrieved=tuple(dict.fromkeys(retrieved)),
                no_verdict=True,
            )
        return Gap(
            plan_item_id=item.id,
            text=(
                "No yes or no on the facts the question sets out: the rule engine quotes the rules it found but does "
                "not apply them to those facts."
                if on_facts
                else "No direct yes or no: no passage found states one for the question as asked, with the figure or "
                "period it names; what the sources say, and the figures they state, is quoted above."
                if figured
                else "No direct yes or no: no passage found states one for the question as asked; what the sources "
                "say is quoted above."
            ),
            retrieved=tuple(dict.fromkeys(retrieved)),
            no_verdict=True,
        )
    if retrieved:
        found = ", ".join(dict.fromkeys(retrieved))
        return Gap(
            plan_item_id=item.id,
            text=f"The draft does not state {what}; passages retrieved for it: {found}.",
            retrieved=tuple(dict.fromkeys(retrieved)),
        )
    if unverified:
        docs = tuple(dict.fromkeys(unverified))
        return Gap(
            plan_item_id=item.id,
            text=f"The answer states {what} only from {', '.join(docs)}, which no analyst has verified yet.",
            unverified=docs,
        )
    if item.jurisdiction == ANY_JURISDICTION and not item.answerable:
        text = f"The plan could not place {item.ask}: the answer says nothing about it."
    elif item.answerable and plan is not None and not plan.subject_treated:
        text = f"No document of the corpus treats what the question asks about: it holds no source stating {what}."
    elif item.answerable and planned is not None and planned.code == item.jurisdiction and planned.not_in_force:
        held = ", ".join(planned.not_in_force)
        text = (
            f"The corpus holds no source in force stating {what}; its only sources there ({held}) are not law in force."
        )
    elif item.answerable:
        text = f"{NO_SOURCE_LEAD} {what}."
    elif planned is not None and planned.parts:
        text = f"The corpus holds no source for {name} as a whole, only law of {names_listed(planned.parts)}, answered above."
    elif planned is not None and planned.via:
        text = f"For {name}, the corpus holds {planned.via} sources, which apply there, but none of {own_law(planned.code)}."
    else:
        text = f"The corpus holds no source for {name}."
    return Gap(plan_item_id=item.id, text=text)


VERDICT_PART = re.compile(
    r"(?:^|(?<=[\s.;]))(?:\((?P<label>[^)]{1,12})\)\s*|(?P<code>[A-Z]{2,3}(?:-[A-Z0-9]{1,3})?):\s*|^)"
    r"(?P<word>Yes|No)\b(?=[.,;:])"
)
"""A verdict word at the start of the verdict or of one of its parts: "Yes.", "(2) No.", "EU: No, only ..."."""


OPEN_WORDS = "Open: no passage found states a yes or no"
"""Said in a verdict in the place of a part of the question (or a jurisdiction asked for each) no sentence speaks
to."""


def open_part(label: str, what: str = "to this part") -> str:
    """The verdict's words for a part ("(1)") or jurisdiction ("AU:", "for AU") that no source answers."""
    return f"{label} {OPEN_WORDS} {what}."


def has_open_part(claim: Claim) -> bool:
    """Whether a verdict leaves one of the question's yes/no parts open: it does not answer the verdict item."""
    return claim.kind == "verdict" and OPEN_WORDS in claim.text


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


def claim_id(code: str, claim: Claim) -> str:
    """A claim's stable reference within an answer: its section and its words (white space ignored)."""
    digest = hashlib.sha256(f"{code}|{' '.join(claim.text.split())}".encode()).hexdigest()[:10]
    return f"C-{digest}"


class StruckClaim(BaseModel):
    """A claim an analyst removed from the answer, with why, by whom and when (the act is in the audit chain)."""

    model_config = ConfigDict(frozen=True)

    jurisdiction: str
    claim: Claim
    reason: str
    by: str
    at: str

    @property
    def id(self) -> str:
        return claim_id(self.jurisdiction, self.claim)


class Answer(BaseModel):
    """The whole answer: an optional verdict, sections per jurisdiction and the gaps."""

    model_config = ConfigDict(frozen=True)

    verdict: Claim | None = None
    sections: tuple[AnswerSection, ...] = ()
    gaps: tuple[Gap, ...] = ()
    unverified_doc_ids: tuple[str, ...] = ()
    """Cited documents that were unverified uploads when the answer was drafted (see `with_unverified`)."""
    struck: tuple[StruckClaim, ...] = ()
    """Claims the analyst struck out, kept to be listed in the exports."""

    def claims(self) -> list[Located]:
        """Every claim with its section's jurisdiction (the verdict under "*")."""
        out: list[Located] = [(ANY_JURISDICTION, self.verdict)] if self.verdict else []
        return out + [(s.jurisdiction, c) for s in self.sections for c in s.claims]

    def said(self) -> str:
        """What the answer states: its claims' texts, the verdict first."""
        return " ".join(c.text for _, c in self.claims())

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

    def find(self, cid: str) -> Located | None:
        """The claim with this `claim_id`, with its section's jurisdiction, or None."""
        return next(((code, c) for code, c in self.claims() if claim_id(code, c) == cid), None)

    def without(self, cid: str) -> Answer:
        """A copy without the claim `cid` (the verdict, or a claim of a section; a section left empty is dropped)."""
        if self.verdict is not None and claim_id(ANY_JURISDICTION, self.verdict) == cid:
            return self.model_copy(update={"verdict": None})
        out = self
        for section in self.sections:
            kept = [c for c in section.claims if claim_id(section.jurisdiction, c) != cid]
            if len(kept) != len(section.claims):
                out = out.with_claims(section.jurisdiction, kept)
        return out

    def body_text(self) -> str:
        """The answer's own statements as plain text (no gaps, no disclosure), for fact coverage and word counts."""
        return "\n".join(c.text for _, c in self.claims())

    def word_count(self) -> int:
        """Words of the answer's statements (disclosures aside: they say what is left, not what the law is)."""
        return sum(len(c.text.split()) for _, c in self.claims() if c.kind != "disclosure")


def strike(answer: Answer, plan: ResearchPlan | None, cid: str, reason: str, by: str, at: str) -> Answer:
    """The answer with claim `cid` struck out (ValueError when it holds no such claim); every plan item the claim
    answered is checked again, and one that no remaining claim answers becomes a gap (replacing a gap that said
    the answer states it from an unverified upload)."""
    found = answer.find(cid)
    if found is None:
        raise ValueError(f"the answer holds no claim {cid}")
    code, claim = found
    out = answer.without(cid)
    answered = {i for _, c in out.claims() for i in c.plan_item_ids}
    gaps = {g.plan_item_id: g for g in out.gaps}
    for item in plan.items if plan is not None else ():
        said_by_struck = item.id in gaps and bool(gaps[item.id].unverified)  # "the answer states it from ..."
        if item.id in claim.plan_item_ids and item.id not in answered and (item.id not in gaps or said_by_struck):
            gaps[item.id] = gap_for(item, plan, struck=(by, reason))
    struck = StruckClaim(jurisdiction=code, claim=claim, reason=reason, by=by, at=at)
    return out.model_copy(update={"gaps": tuple(gaps.values()), "struck": (*out.struck, struck)})


GAP_HEADING = "Not answered by the corpus"
DRAFT_GAP_HEADING = "Not answered by the draft"
STRUCK_GAP_HEADING = "No longer answered (a claim was struck)"
UNVERIFIED_GAP_HEADING = "Stated only by unverified uploads"
GAP_HEADINGS = (DRAFT_GAP_HEADING, STRUCK_GAP_HEADING, UNVERIFIED_GAP_HEADING, GAP_HEADING)


def gap_groups(answer: Answer) -> list[tuple[str, list[Gap]]]:
    """The answer's open items under the heading that says why each is open (in `GAP_HEADINGS` order, empty
    groups left out): the draft did not use the passages found, an analyst struck the claim, only unverified
    uploads state it, or the corpus holds nothing on it. The pages and every export show the same groups."""
    groups = (
        (DRAFT_GAP_HEADING, [g for g in answer.gaps if g.retrieved or g.no_verdict]),
        (STRUCK_GAP_HEADING, [g for g in answer.gaps if g.struck_by and not g.retrieved]),
        (UNVERIFIED_GAP_HEADING, [g for g in answer.gaps if g.unverified]),
        (
            GAP_HEADING,
            _by_place([g for g in answer.gaps if not (g.retrieved or g.struck_by or g.unverified or g.no_verdict)]),
        ),
    )
    return [(heading, gaps) for heading, gaps in groups if gaps]


NO_SOURCE = re.compile(rf"^{re.escape(NO_SOURCE_LEAD)} (?P<what>.+) for (?P<name>[^.]+)\.$")
"""A gap line of one item the corpus holds nothing on (`gap_for`): what it asks, and for which place."""


def _by_place(gaps: list[Gap]) -> list[Gap]:
    """The gaps with one line per place for the items the corpus holds nothing on ("The corpus holds no source
    stating, for the EU: the figures ...; when the rules apply ...; the penalties ..."), not one line per item."""
    places: dict[str, list[tuple[Gap, str]]] = {}
    for g in gaps:
        if m := NO_SOURCE.match(g.text):
            places.setdefault(m.group("name"), []).append((g, m.group("what")))
    out: list[Gap] = []
    for g in gaps:
        m = NO_SOURCE.match(g.text)
        if m is None or len(places[m.group("name")]) == 1:
            out.append(g)
        elif places[m.group("name")][0][0] is g:
            asked = "; ".join(what for _, what in places[m.group("name")])
            out.append(g.model_copy(update={"text": f"{NO_SOURCE_LEAD}, for {m.group('name')}: {asked}."}))
    return out


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
        parts.append(f"Short answer: {claim_line(answer.verdict, flagged)}")
    if plan is not None and plan.comparison:
        table = comparison_table(answer, plan)
        if table:
            parts.append(table)
    for section in answer.sections:
        if not section.claims:
            continue
        name = names.get(section.jurisdiction)
        heading = f"## {section.jurisdiction}" + (f" ({name})" if name and name != section.jurisdiction else "")
        body = heading + "\n" + "\n".join(claim_line(c, flagged) for c in section.claims)
        named = [sources[d] for d in dict.fromkeys(d for c in section.claims for d in c.doc_ids) if d in sources]
        if named:
            body += "\n\nSources: " + "; ".join(named) + "."
        parts.append(body)
    for heading, gaps in gap_groups(answer):
        parts.append(f"## {heading}\n" + "\n".join(f"- {g.text}" for g in gaps))
    return "\n\n".join(parts).strip()


def claim_line(claim: Claim, unverified: Collection[str]) -> str:
    """One claim as the answer states it: its text, its `[doc-id]` marks and the unverified-upload mark."""
    marks = " ".join(f"[{d}]" for d in claim.doc_ids)
    verdict = claim.kind == "verdict"
    lead = "History: " if claim.history and not verdict else ""
    mark = f" {UNVERIFIED_MARK}" if claim.rests_on(unverified) else ""
    mark += f" {HISTORY_GROUNDS}" if claim.history and verdict else ""
    by = f" (written by the {claim.written_by} drafter)" if claim.written_by else ""
    return f"{lead}{claim.text} {marks}".strip() + mark + by


HISTORY_GROUNDS = "(quoting a source no longer in force)"
"""How a verdict says it rests on a source that no longer applies ("No. ... the court set aside the rule"): the yes
or no is about today, so it is not headed "History:" as a claim of what the law was."""


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


def compared_codes(answer: Answer, plan: ResearchPlan) -> list[str]:
    """The jurisdictions the comparison table has a row for: the answered places the question names, and a wider
    one (a member state's union) only where a named place has no section of its own and is answered from it
    ("Spain" from EU law). Beside places answered from their own law a wider one is context, not one of the places
    compared: a union's act on another subject is no row of "the maximum length in Massachusetts, Germany and the
    United Kingdom"."""
    answered = [s.jurisdiction for s in answer.sections if s.claims]
    if not plan.jurisdictions:
        return answered
    own = {j.code for j in plan.jurisdictions if any(same_jurisdiction(j.code, c) for c in answered)}
    stand_ins = {w for j in plan.jurisdictions if j.code not in own for w in j.answered_from()}
    wanted = {j.code for j in plan.jurisdictions} | stand_ins
    return [c for c in answered if any(same_jurisdiction(c, w) for w in wanted)]


def comparison_rows(answer: Answer, plan: ResearchPlan) -> list[list[str]]:
    """The comparison as rows, header first: jurisdiction x aspect, each cell the figure, period, date or short
    rule of the first claim on that item that states one, with its source ("25% or more (eu-amlr, Article 52)"),
    never a truncated sentence ("not stated" when no claim on the item states the figure, period or date; "not
    asked" when the plan asks that aspect of other places only); no rows when fewer than two jurisdictions are
    answered."""
    aspects = [a for a in TABLE_ASPECTS if any(i.aspect == a for i in plan.items)]
    codes = compared_codes(answer, plan)
    if len(codes) < 2 or not aspects:
        return []
    rows = [["jurisdiction", *(a.label for a in aspects)]]
    term = bool(TERM_ASKED.search(plan.question))
    for code in codes:
        section = answer.section(code)
        cells = [code]
        for aspect in aspects:
            wanted = item_id(code, aspect)
            if plan.item(wanted) is None:  # a model planner may ask an aspect of one place only
                cells.append("not asked")
                continue
            tagged = [c for c in section.claims if wanted in c.plan_item_ids] if section else []
            cell = next((v for c in tagged if (v := _cell(c, aspect, code, term))), "")
            cells.append(cell or (f"not stated (see {code} below)" if tagged else "not found in the corpus"))
        rows.append(cells)
    return rows


VALUE_ASPECTS = (Aspect.threshold, Aspect.penalty, Aspect.deadline, Aspect.date)
"""Aspects whose cell holds a figure, period or date: a claim stating none leaves the cell to the next claim."""


def comparison_table(answer: Answer, plan: ResearchPlan) -> str:
    """The comparison (`comparison_rows`) as a Markdown table, '' when there is none."""
    rows = comparison_rows(answer, plan)
    if not rows:
        return ""
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join([lines[0], "|---|" + "---|" * (len(rows[0]) - 1), *lines[1:]])


TERM_ASKED = re.compile(r"\b(?:prison|imprison\w*|jail|custod\w*|sentences?|terms?)\b", re.I)
"""A question asking a penalty's term ("the maximum prison term"): its cell is the period, not the first amount
("up to five years", not the company's "USD 2 million" stated before it)."""


INTENDED = re.compile(
    r"\b(?:intend(?:s|ed)? to|propos(?:es|ed|al)|plan(?:s|ned)? to|would (?:have )?(?:limit|cap|set))\b", re.I
)
"""Wording by which a sentence states a rule only planned ("announced that it intended to legislate to limit ... to
three months"): a figure a table cell takes from it is no rule in force, and the cell says so."""
UNCERTAIN = re.compile(r"\b(?:not verified|unverified|reported(?:ly)? as|reportedly|not confirmed)\b", re.I)
"""Wording by which a source marks what it states as uncertain: a figure a table cell takes from such a sentence
says so, as the sentence does."""


def _cell(claim: Claim, aspect: Aspect, code: str, term: bool = False) -> str:
    """The cell a claim gives an aspect, with its source; "" when the aspect wants a figure, period or date and
    the claim states none (a sentence about a tribunal claim is no time limit). `term`: the question asks a
    penalty's term, so a penalty cell states the period first."""
    text = " ".join(claim.said.split())
    value = raw = ""
    if aspect == Aspect.penalty and term:
        found = periods(text)
        value = raw = found[0] if found else ""
    if not value and aspect in (Aspect.threshold, Aspect.penalty):
        figs = [f for f in figures(text) if f.unit != "days"]
        # "from X to Y" states a change: the figure that applies is the one it goes to
        figs = [f for f in figs if not text[: text.find(f.text)].rstrip().lower().endswith("from")] or figs
        if figs:
            f = figs[0]
            value, raw = COMPARATOR_WORDS.get(f.comparator or "", "{}").format(f.text), f.text
    if not value and aspect in (Aspect.deadline, Aspect.records, Aspect.penalty):
        found = periods(text)
        value = raw = found[0] if found else ""
    if not value and aspect in (Aspect.date, Aspect.deadline):
        found_dates = dates(text)
        if found_dates:
            value = format_date(found_dates[0])
            raw = next(text[d.start : d.end] for d in date_spans(text) if d.day)
    if not value and aspect in VALUE_ASPECTS:
        return ""
    said = re.split(r"(?<=[.!?])\s+(?=[A-Z\"'(\[])", text.strip())  # "Law No. 2017-399 ..." is one sentence
    if value and any(raw in s and UNCERTAIN.search(s) for s in said):
        value = f"{value}, not verified"  # "the amounts, reported as up to EUR 1,500 ..., are not verified"
    elif value and any(raw in s and INTENDED.search(s) for s in said):
        value = f"{value}, only proposed"  # "the government announced that it intended to legislate ... three months"
    if not value:
        first = next(iter(said), "")
        value = first.rstrip(".") if len(first.split()) <= CELL_WORDS else f"see {code} below"
    ref = SECTION_REF.search(" ".join(q.quote for q in claim.citations) or text)
    source = ", ".join(x for x in (claim.doc_ids[0] if claim.doc_ids else "", ref.group(0) if ref else "") if x)
    return (f"{value} ({source})" if source else value).replace("|", "/")
