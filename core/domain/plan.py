"""The research plan: what a question asks, item by item, before anything is retrieved.

A plan names the jurisdictions asked (with the words the question used and whether the corpus holds a source for
them), the entity types, the as-of date and one item per jurisdiction and asked aspect. The critic checks the
answer against these items, so an answer that leaves part of the question open cannot pass as complete.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from enum import Enum

from pydantic import BaseModel, ConfigDict

from core.domain.gazetteer import occurrences

ANY_JURISDICTION = "*"
"""Jurisdiction of an item when the question names none: any jurisdiction the corpus holds may answer it."""


class Aspect(str, Enum):
    """What an item asks about."""

    scope = "scope"
    threshold = "threshold"
    date = "date"
    exemption = "exemption"
    definition = "definition"
    obligation = "obligation"
    verdict = "verdict"
    comparison = "comparison"
    deadline = "deadline"
    penalty = "penalty"
    recipient = "recipient"
    records = "records"

    @property
    def label(self) -> str:
        """Words for the aspect in answers and reports."""
        return ASPECT_LABELS[self.value]

    @property
    def needs(self) -> str:
        """What a claim must state to answer an item of this aspect (empty: no more than being on the item)."""
        return ASPECT_NEEDS.get(self.value, "")

    @property
    def asks(self) -> str:
        """The aspect as the object of a sentence ("the corpus holds no source stating ...")."""
        return ASPECT_ASKS[self.value]


ASPECT_LABELS: dict[str, str] = {
    "scope": "scope and applicability",
    "threshold": "thresholds and figures",
    "date": "dates, deadlines and changes over time",
    "exemption": "exemptions",
    "definition": "definitions",
    "obligation": "obligations and procedures",
    "verdict": "the direct answer (yes or no)",
    "comparison": "the comparison asked for",
    "deadline": "deadlines and time limits",
    "penalty": "penalties and fines",
    "recipient": "whom to notify or report to",
    "records": "record-keeping and retention",
}
"""New members are appended: checkpoints revive an aspect by its value, so the old values never change."""
ASPECT_NEEDS: dict[str, str] = {
    "threshold": "a figure (an amount, share or count)",
    "date": "a date or year",
    "deadline": "a period or date by which it must be done, or a standard of promptness ('without undue delay')",
    "penalty": "an amount, share, multiple or term of a penalty",
    "recipient": "the body to be notified or reported to",
    "records": "what must be kept and for how long",
}
"""What a supporting claim must contain, per aspect; the coverage verifier checks it against the quoted text."""
ASPECT_ASKS: dict[str, str] = {
    "scope": "to whom and to what the rules apply",
    "threshold": "the figures or thresholds that apply",
    "date": "when the rules apply and how they changed",
    "exemption": "which exemptions or exceptions apply",
    "definition": "how the key terms are defined",
    "obligation": "what the rules require",
    "verdict": "a direct yes or no",
    "comparison": "how the jurisdictions compare",
    "deadline": "by when it must be done (a period or a date)",
    "penalty": "the penalties or fines for a breach",
    "recipient": "whom to notify or report to",
    "records": "which records must be kept and for how long",
}


WORDS_PER_ITEM = 60
MAX_WORDS = 450
WORDS_PER_JURISDICTION = 150
"""The answer's word budget: short enough to read, growing with what the plan asks (see `word_budget`)."""


class PlannedJurisdiction(BaseModel):
    """A jurisdiction the question asks about."""

    model_config = ConfigDict(frozen=True)

    code: str
    name: str
    named_as: tuple[str, ...] = ()
    in_corpus: bool = True
    via: str | None = None
    """The nearest corpus jurisdiction whose law also applies here (a member state's union, a state's country)."""
    wider: tuple[str, ...] = ()
    """Every corpus jurisdiction whose law also applies here, nearest first (`via` is the first): a state is
    answered from its own documents and its country's, a member state from its own and its union's."""
    parts: tuple[str, ...] = ()
    """Corpus codes of this country's subdivisions planned beside it (the corpus holds no law of the country as a
    whole, or the question asks of its states or provinces)."""
    not_in_force: tuple[str, ...] = ()
    """This place's own documents that state no law in force at the plan's as-of date, each with its status
    ("nl-pay-bill (proposed)"): an item nothing in force answers says the corpus holds only these, not nothing."""

    def answered_from(self) -> list[str]:
        """The corpus jurisdictions whose sources answer for this place: its own where the corpus holds it, and
        every wider one (a plan checkpointed before `wider` existed has only `via`)."""
        own = [self.code] if self.in_corpus else []
        return list(dict.fromkeys([*own, *(self.wider or ((self.via,) if self.via else ()))]))


class PlanItem(BaseModel):
    """One thing the answer must say: a jurisdiction and an aspect, with its retrieval query."""

    model_config = ConfigDict(frozen=True)

    id: str
    jurisdiction: str
    aspect: Aspect
    ask: str
    query: str
    answerable: bool = True
    """False when the corpus holds no source for the jurisdiction: the item is disclosed, never retrieved."""
    supporting: bool = False
    """True when the planner added the item to ground another (when a rule applied, for a yes or no the question
    asks) and the question does not ask it: its claims count when found, but no source stating it is no gap of
    the answer."""


class ResearchPlan(BaseModel):
    """The question broken into items; part of every checkpoint and of the audit trail."""

    model_config = ConfigDict(frozen=True)

    question: str
    as_of: date
    jurisdictions: tuple[PlannedJurisdiction, ...] = ()
    entity_types: tuple[str, ...] = ()
    topic_terms: tuple[str, ...] = ()
    focus_terms: tuple[str, ...] = ()
    """Topic words the question stresses ("focusing on ...", "in particular ...")."""
    named_doc_ids: tuple[str, ...] = ()
    history_doc_ids: tuple[str, ...] = ()
    yes_no: bool = False
    verdict_on_facts: bool = False
    """The yes or no is asked on facts the question sets out ("Our subsidiary has 120 employees. Does it need an
    internal channel?"): the rule engine quotes the rules it finds but does not apply them to those facts, and
    says so."""
    comparison: bool = False
    items: tuple[PlanItem, ...] = ()
    planner: str = "offline"
    subject_treated: bool = True
    """False when no usable document of the corpus states two of the question's subject words (a bread recipe
    asked of a regulatory corpus): then a sentence sharing one word with the question answers nothing."""
    not_understood: tuple[str, ...] = ()
    """What the question names that the planner could map to no place, authority or instrument of the corpus
    or the gazetteer (each is also a disclosed item), or could not tell apart (a name two countries share)."""

    def item(self, item_id: str) -> PlanItem | None:
        """The item with that id, or None."""
        return next((i for i in self.items if i.id == item_id), None)

    def unplaced_name(self, item: PlanItem) -> str | None:
        """The name the question uses that this disclosed item stands for (see `not_understood`), or None."""
        return next((n for n in self.not_understood if named_item_id(n) == item.id), None)

    def names_unplaced(self, item: PlanItem, said: str) -> bool | None:
        """Whether `said` (an answer's statements) names the name this disclosed item stands for, which the plan
        could not place ("Xinjiang" in a law the answer quotes); None when the item stands for no such name. The
        drafter's gap and the critic's deficiency for the item both follow it."""
        name = self.unplaced_name(item)
        return None if name is None else bool(occurrences(name, said))

    def jurisdiction(self, code: str) -> PlannedJurisdiction | None:
        """The planned jurisdiction with that code, or None."""
        return next((j for j in self.jurisdictions if j.code == code), None)

    def asked_share(self, answered: Iterable[str]) -> tuple[int, int]:
        """(answered, planned): how many of the items the question asks the answer supports, of how many
        (supporting items aside: the question does not ask them)."""
        asked = {i.id for i in self.items if not i.supporting}
        return len(asked & set(answered)), len(asked)

    def word_budget(self) -> int:
        """Words the answer's statements may take (sources and disclosures aside): WORDS_PER_ITEM per answerable
        item, at most WORDS_PER_JURISDICTION per answered jurisdiction and never more than MAX_WORDS for up to
        three of them."""
        items = sum(1 for i in self.items if i.answerable and i.aspect != Aspect.comparison)
        codes = max(1, len(self.answer_codes()))
        cap = MAX_WORDS if codes <= 3 else WORDS_PER_JURISDICTION * codes
        return max(WORDS_PER_ITEM, min(WORDS_PER_ITEM * items, cap))

    def answer_codes(self) -> list[str]:
        """Corpus jurisdictions whose sources answer the plan: each place's own and the wider ones that apply
        there (a member state's union, a state's country)."""
        return list(dict.fromkeys(c for j in self.jurisdictions for c in j.answered_from()))


def named_item_id(name: str) -> str:
    """Id of the disclosed item for a name the question uses that the planner could not place."""
    return f"named:{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')}"


def item_id(jurisdiction: str, aspect: Aspect | str) -> str:
    """Readable, stable id of a plan item: the coverage deficiency about it keeps its ID across cycles."""
    return f"{jurisdiction}:{Aspect(aspect).value}"


def verdict_item(question: str, answerable: bool) -> PlanItem:
    """The cross-jurisdiction item of a yes/no question: the direct answer, retrieved with the question itself."""
    return PlanItem(
        id=item_id(ANY_JURISDICTION, Aspect.verdict),
        jurisdiction=ANY_JURISDICTION,
        aspect=Aspect.verdict,
        ask=f"a direct yes or no to: {question}",
        query=question,
        answerable=answerable,
    )


def comparison_item(codes: Iterable[str], answerable: bool) -> PlanItem:
    """The cross-jurisdiction item of a comparing question: drawn from the other items, never retrieved."""
    return PlanItem(
        id=item_id(ANY_JURISDICTION, Aspect.comparison),
        jurisdiction=ANY_JURISDICTION,
        aspect=Aspect.comparison,
        ask="a comparison across " + ", ".join(codes),
        query="",
        answerable=answerable,
    )
