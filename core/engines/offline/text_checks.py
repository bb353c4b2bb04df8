"""Checks of the offline critic that read the documents' text rather than their front matter: exceptions a plain
document states in its passages, claims drawn from a document about another subject, and a size stated in words
where the source sets the threshold."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.domain.answer import Located
from core.domain.corrections import SIZE_THRESHOLD, DocumentPart, OffTopicClaim, filter_of
from core.domain.documents import DocStatus
from core.domain.figures import counts, figures
from core.domain.instructions import has_instructions
from core.domain.plan import ANY_JURISDICTION, Aspect, ResearchPlan
from core.domain.records import Deficiency, DeficiencyType, Severity
from core.engines.base import EngineContext
from core.engines.offline.aspects import SANCTION
from core.engines.offline.claim_checks import amends_a_cited_figure
from core.engines.offline.ranking import doc_units
from core.engines.offline.relevance import min_relevance, said_terms, subject_best, topic_share, topical_sentence
from core.engines.offline.sources import short_name
from core.engines.text import VAGUE_SIZE, is_anaphoric, sentences, term_set

T = DeficiencyType


EXCEPTION = re.compile(
    r"\b(?:need not|does not apply|do not apply|is not required|are not required|not subject to|exempt\w*|unless|"
    r"except\w*|excluded|shall not apply|not covered)\b",
    re.I,
)
"""How a plain document states an exemption or exception in its text (when its front matter declares none)."""
TEXT_RULES = 2


def check_text_exemptions(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """For a question that asks about exemptions: an exception stated in the text of a cited source that declares
    none in its front matter, on the question's topic, that the answer omits."""
    asked = {i.jurisdiction for i in plan.items if i.aspect == Aspect.exemption and i.answerable}
    if not asked:
        return []
    said = " ".join(c.text for _, c in claims).lower()
    topic = set(plan.topic_terms)
    needed = max(1, round(min_relevance(topic) * len(topic)))
    out: list[Deficiency] = []
    for doc_id in dict.fromkeys(d for _, c in claims if c.kind == "finding" for d in c.doc_ids):
        doc = ctx.catalog.get(doc_id)
        if doc is None or doc.exemptions or ctx.catalog.status_at(doc_id, ctx.as_of) != DocStatus.in_force:
            continue
        if not asked & {doc.jurisdiction, ANY_JURISDICTION}:
            continue
        rules = [
            u.text
            for u in doc_units(doc_id, ctx)
            if EXCEPTION.search(u.text)
            and not is_anaphoric(u.text)
            and not has_instructions(u.text)
            and len(said_terms(topic, u.text, plan.topic_terms)) >= needed
            and not all(q.lower() in said for q in u.quotes)
        ][:TEXT_RULES]
        if not rules:
            continue
        code = doc.jurisdiction
        item = next(
            (i.id for i in plan.items if i.aspect == Aspect.exemption and i.jurisdiction in (code, ANY_JURISDICTION)),
            "",
        )
        out.append(
            Deficiency(
                deficiency_type=T.missing_exemption,
                subject=str(DocumentPart(doc_id, "text")),
                severity=Severity.high,
                affected_section=code,
                description=f"{short_name(doc)} states an exception the answer omits: " + " ".join(rules),
                suggested_correction_query=" ".join(rules),
                correction_filter=filter_of(doc_ids=[doc_id], rules=rules, items=[item] if item else []),
                evidence_doc_ids=(doc_id,),
            )
        )
    return out


def check_relevance(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """A finding from a document about something else (it shares the jurisdiction, not the topic): the item it
    is tagged with is named, and the correction replaces the claim with one on the item's topic."""
    out: list[Deficiency] = []
    codes = {doc.jurisdiction for _, c in claims for d in c.doc_ids if (doc := ctx.catalog.get(d)) is not None}
    shares = {
        d.id: topic_share(plan, ctx.doc_text(d.id))
        for d in ctx.catalog.all()
        if d.jurisdiction in codes and ctx.catalog.status_at(d.id, ctx.as_of).usable
    }
    best = {code: subject_best(plan, ctx, code) for code in codes}
    for code, c in claims:
        if c.kind != "finding" or c.history or not c.citations or not c.plan_item_ids:
            continue
        doc_id = c.citations[0].doc_id
        doc = ctx.catalog.get(doc_id)
        if doc is None or doc_id not in shares:
            continue
        if topical_sentence(plan, c.said, shares[doc_id], best.get(doc.jurisdiction, 0)):
            continue
        if amends_a_cited_figure(c, claims, ctx):
            continue
        item = plan.item(c.plan_item_ids[0])
        out.append(
            Deficiency(
                deficiency_type=T.insufficient_specificity,
                subject=str(OffTopicClaim.of(c.plan_item_ids[0], c.said)),
                severity=Severity.medium,
                affected_section=code,
                affected_text=c.text,
                description=(
                    f"The claim '{c.said[:100]}' comes from a source on another subject and does not answer "
                    f"{item.ask if item else c.plan_item_ids[0]}."
                ),
                suggested_correction_query=item.query if item else plan.question,
                correction_filter=filter_of(
                    jurisdictions=[code] if code != ANY_JURISDICTION else [],
                    exclude_doc_ids=[doc_id],
                    items=list(c.plan_item_ids),
                ),
                evidence_doc_ids=c.doc_ids,
            )
        )
    return out


ORGANISATION = term_set("business businesses company companies entity entities employer employers undertaking firm")
"""Nouns for whom a size threshold decides ("An entity must report if it has a consolidated revenue of at least
AUD 100 million")."""
LOWER_BOUND = (">=", ">")


def sized_in_words(text: str) -> str | None:
    """The first organisation the text sizes in words ("large businesses", "larger employers"), or None."""
    for m in VAGUE_SIZE.finditer(text):
        following = text[m.end() :].split()[:2]
        for n, word in enumerate(following):
            if term_set(word) & ORGANISATION:
                return " ".join([m.group(0), *following[: n + 1]]).strip(",.;:")
    return None


def _threshold_sentence(doc_id: str, ctx: EngineContext) -> tuple[str, str] | None:
    """The first sentence of the document that sets a size threshold for whom it binds: a lower bound on an amount
    or a bounded count, said of an organisation, not a penalty. Returned with the figure's wording."""
    for s in sentences(ctx.doc_text(doc_id)):
        if has_instructions(s) or is_anaphoric(s) or SANCTION.search(s) or not term_set(s) & ORGANISATION:
            continue
        bound = next((f.text for f in figures(s) if f.comparator in LOWER_BOUND and f.unit != "percent"), None)
        bound = bound or next(iter(counts(s)), None)
        if bound:
            return s, bound
    return None


def check_vague_size(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """A claim that sizes whom a rule binds in words ("requires large businesses to publish ...") where its source
    sets the threshold in figures the answer never states: which businesses are large is what the analyst needs,
    and the correction adds the source's sentence that says it."""
    said = " ".join(c.said for _, c in claims)
    out: list[Deficiency] = []
    seen: set[str] = set()
    for code, c in claims:
        if c.kind != "finding" or c.history or not c.citations:
            continue
        vague = sized_in_words(c.said)
        if vague is None or figures(c.said) or counts(c.said):
            continue
        doc_id = c.citations[0].doc_id
        doc = ctx.catalog.get(doc_id)
        if doc is None or doc_id in seen or ctx.catalog.status_at(doc_id, ctx.as_of) != DocStatus.in_force:
            continue
        found = _threshold_sentence(doc_id, ctx)
        if found is None or found[0] in said or found[1] in said:
            continue
        seen.add(doc_id)
        sentence, bound = found
        out.append(
            Deficiency(
                deficiency_type=T.insufficient_specificity,
                subject=str(DocumentPart(doc_id, SIZE_THRESHOLD)),
                severity=Severity.medium,
                affected_section=code,
                description=(
                    f"The answer says '{vague}' but not the size threshold its source sets ({bound}, "
                    f"{short_name(doc)})."
                ),
                suggested_correction_query=sentence,
                correction_filter=filter_of(doc_ids=[doc_id], items=list(c.plan_item_ids)),
                evidence_doc_ids=(doc_id,),
            )
        )
    return out
