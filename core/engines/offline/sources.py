"""The sources of the offline engine: documents' short names, citation records, which documents may be cited at
the as-of date, and the metadata sentences (applicability, polarity) drawn from them."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from core.domain.answer import Answer, Quote
from core.domain.documents import DocStatus, DocumentMeta
from core.domain.figures import format_date
from core.domain.gazetteer import is_place_name, jurisdiction_name
from core.domain.instructions import has_instructions
from core.domain.plan import ResearchPlan
from core.domain.records import Citation
from core.engines.base import DraftResult, EngineContext, Usage
from core.engines.text import is_anaphoric, sentences

ENDED = re.compile(
    r"\b(?:repeal\w*|replaced|supersed\w*|revoked|expired|removed|abolished|ceased to apply|no longer (?:appl\w*|state))\b",
    re.I,
)
"""Wording that states an instrument's end."""

YEAR = re.compile(r"(?<![/\d.-])(?:19|20)\d\d(?![/\d])")
"""A year on its own ("in 2025", "October 2025"), not the number of an act ("Regulation 2024/1624")."""
INSTRUMENT_NUMBER = re.compile(
    r"(?<![\w/])(?:(?:19|20)\d\d/\d{1,4}|\d{1,4}/(?:19|20)\d\d|\d\d/\d{1,4}(?=/(?:EEC|EC|EU|Euratom)\b))(?!\d)"
)
"""An instrument's number as its title or instrument field writes it ("Directive 2008/48/EC", "Regulation (EU)
2023/1113", "Directive 92/85/EEC" with a two-digit year before its series): a question stating the same number names
that document, whatever its front matter says besides."""
NEGATION = re.compile(
    r"\b(no|not|never|none|neither|nor|cannot|exempt\w*|excluded|no longer|only|"
    r"without (?:having|needing|being (?:required|obliged)) to)\b",
    re.I,
)
"""Words that deny what follows them ("without having to report internally first" denies a duty to report)."""


def short_name(doc: DocumentMeta) -> str:
    """The document's first alias (its usual short name), else its title; flawed documents keep their full title
    so they are never confused with the instrument they misdescribe."""
    if doc.status in (DocStatus.erroneous, DocStatus.superseded) or not doc.aliases:
        return doc.title
    return doc.aliases[0]


TITLE_DESCRIPTION = re.compile(r"\s+[\u2013\u2014-]\s+(?=[a-z])")
"""Where a title goes on from the document's name to what it is about, in lower case ("... 2023/1542, Article 11 –
portable batteries in appliances must be removable ...")."""


def lead_name(doc: DocumentMeta) -> str:
    """How "X applies only from D" names the document: its short name (`short_name`) without the description its
    title goes on to (which often states D itself), so the sentence reads as one. A proposal's lead keeps the
    whole title: what it describes is what is proposed."""
    name = short_name(doc)
    return name if doc.aliases and name == doc.aliases[0] else TITLE_DESCRIPTION.split(name, maxsplit=1)[0]


def doc_chunks(doc_id: str, ctx: EngineContext) -> Iterator[tuple[str, str]]:
    """The document's passages in order, as (chunk id, text)."""
    index = 0
    while (chunk := ctx.chunk(f"{doc_id}#{index}")) is not None:
        yield chunk.chunk_id, chunk.text
        index += 1


def _accepted(doc_id: str, ctx: EngineContext, wanted: Callable[[str], bool]) -> Iterator[tuple[str, list[str], int]]:
    """Every sentence of the document, in passage order, that `wanted` accepts and that instructs no one, as (chunk
    id, the passage's sentences, its index among them)."""
    for chunk_id, text in doc_chunks(doc_id, ctx):
        sents = sentences(text)
        for i, said in enumerate(sents):
            if wanted(said) and not has_instructions(said):
                yield chunk_id, sents, i


def first_sentence(doc_id: str, ctx: EngineContext, wanted: Callable[[str], bool]) -> Quote | None:
    """The document's first sentence, in passage order, that `wanted` accepts and that instructs no one."""
    found = next(_accepted(doc_id, ctx, wanted), None)
    return None if found is None else Quote(doc_id=doc_id, chunk_id=found[0], quote=found[1][found[2]])


def first_statement(doc_id: str, ctx: EngineContext, wanted: Callable[[str], bool]) -> tuple[Quote, ...]:
    """The document's first sentence that `wanted` accepts (as `first_sentence`), preceded by the sentence before
    it when it opens by referring back ("It recast and replaced Directive 2000/35/EC ..."): quoted alone, it would
    leave out what "it" is. Empty when no sentence is accepted, or when the one before it is not quotable."""
    for chunk_id, sents, i in _accepted(doc_id, ctx, wanted):
        if not is_anaphoric(sents[i]):
            return (Quote(doc_id=doc_id, chunk_id=chunk_id, quote=sents[i]),)
        if i > 0 and not is_anaphoric(sents[i - 1]) and not has_instructions(sents[i - 1]):
            return tuple(Quote(doc_id=doc_id, chunk_id=chunk_id, quote=q) for q in sents[i - 1 : i + 1])
    return ()


def instrument_text(doc: DocumentMeta) -> str:
    """What the document says it is: its title and instrument ("Directive (EU) 2023/970 on pay transparency")."""
    return f"{doc.title} {doc.instrument}"


def instrument_numbers(text: str) -> set[str]:
    """The instrument numbers a text states (`INSTRUMENT_NUMBER`: "2008/48", "596/2014")."""
    return set(INSTRUMENT_NUMBER.findall(text))


DESCRIBED = re.compile(r"\s+[\u2013\u2014-]\s+|:\s+")
"""Where a title goes on from a name to another part: a dash or a colon ("Germany: Working Time Act (Arbeitszeitgesetz)
– eight-hour day, 11 hours' rest, ...", "Regulation (EU) 2017/1369: framework for energy labelling")."""


def own_name(doc: DocumentMeta) -> str:
    """Every name the document gives itself (its title and aliases): which act each of its sentences speaks of. The
    title names the act up to its first part that names more than a place ("Germany: Working Time Act
    (Arbeitszeitgesetz)", "Australia: proposed general safety provision ..."); a later part that opens in lower case
    or lists things describes what the act is about ("– eight-hour day, 11 hours' rest, breaks, Sunday rest and time
    recording", "– HGB §§ 74 to 75d, Karenzentschädigung, two-year limit, written form, waiver"): a sentence
    stating those words speaks to the matter, so they are no name."""
    parts = DESCRIBED.split(doc.title)
    first = next((i for i, part in enumerate(parts) if not _names_place(part, doc)), len(parts) - 1)
    named = [*parts[: first + 1], *(p for p in parts[first + 1 :] if not p[:1].islower() and "," not in p)]
    return " ".join((*named, *doc.aliases))


def _names_place(part: str, doc: DocumentMeta) -> bool:
    """Whether a part of a title only names a place (the document's jurisdiction, by code or name, or another)."""
    text = part.strip()
    return (
        text.upper() == doc.jurisdiction.upper() or text == jurisdiction_name(doc.jurisdiction) or is_place_name(text)
    )


def cited(answer: Answer, ctx: EngineContext, usage: Usage | None = None, notes: tuple[str, ...] = ()) -> DraftResult:
    """A drafter's result for `answer`: its sources that are unverified uploads noted (the rendering marks the
    claims resting only on them) and the citation records of what it cites."""
    answer = answer.with_unverified(ctx.catalog)
    return DraftResult(answer=answer, citations=citations_for(answer, ctx), usage=usage or Usage(), notes=notes)


def citations_for(answer: Answer, ctx: EngineContext) -> list[Citation]:
    """Citation records for every corpus document the answer cites, with the status at the as-of date."""
    quoted: dict[str, list[str]] = {}
    for _, claim in answer.claims():
        for q in claim.citations:
            if q.chunk_id:
                quoted.setdefault(q.doc_id, []).append(q.chunk_id)
    out = []
    for doc_id in answer.cited_doc_ids():
        doc = ctx.catalog.get(doc_id)
        if doc is None:
            continue
        chunk_ids = tuple(dict.fromkeys(quoted.get(doc_id, [])))
        passage_ids = tuple(
            dict.fromkeys(
                str(pid)
                for c in chunk_ids
                if (chunk := ctx.chunk(c)) is not None and (pid := chunk.metadata.get("passage_id")) is not None
            )
        )
        out.append(
            Citation(
                doc_id=doc.id,
                title=doc.title,
                jurisdiction=doc.jurisdiction,
                declared_status=doc.status.value,
                status_at_as_of=ctx.catalog.status_at(doc.id, ctx.as_of).value,
                effective=doc.effective,
                citation=doc.citation,
                chunk_ids=chunk_ids,
                passage_ids=passage_ids,
            )
        )
    return out


def usable(doc_id: str, plan: ResearchPlan, ctx: EngineContext) -> tuple[bool, bool]:
    """(may be cited, only as history) for a document at the plan's as-of date. Erroneous documents and
    proposals never; superseded or repealed ones only as history of an instrument the question asks about."""
    if doc_id not in ctx.catalog:
        return False, False
    status = ctx.catalog.status_at(doc_id, ctx.as_of)
    if status.usable:
        return True, False
    if status.history and doc_id in plan.history_doc_ids:
        return True, True
    return False, False


def applicability_text(doc: DocumentMeta, preds: Sequence[DocumentMeta]) -> str:
    """'X applies only from D; until then Y applies.' from the corpus metadata."""
    name = lead_name(doc)
    text = (
        f"{name} applies only from {format_date(doc.effective)}" if doc.effective else f"{name} is not yet applicable"
    )
    if preds:
        text += (
            "; until then " + " and ".join(short_name(p) for p in preds) + (" apply" if len(preds) > 1 else " applies")
        )
    return text + "."
