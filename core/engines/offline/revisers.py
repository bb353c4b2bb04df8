"""One reviser per deficiency type: each applies an approved correction to the typed answer with the evidence
its retrieval found, and leaves the answer as it was when the evidence does not serve."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from core.domain.answer import Answer, Claim, Quote
from core.domain.corrections import (
    APPLICATION_DATE,
    SIZE_THRESHOLD,
    CorrectionFilter,
    DocumentPart,
    DocumentSubject,
    ItemSubject,
    JurisdictionSubject,
    OffTopicClaim,
    parse_subject,
)
from core.domain.documents import DocStatus
from core.domain.figures import figures
from core.domain.gazetteer import currency_hint, same_jurisdiction
from core.domain.instructions import has_instructions
from core.domain.plan import ANY_JURISDICTION, Aspect, PlanItem, ResearchPlan, item_id
from core.domain.records import Deficiency, DeficiencyType, Evidence
from core.engines.base import EngineContext
from core.engines.offline.ranking import (
    also_answers,
    answer_texts,
    candidates,
    extended,
    item_budget,
    pick,
    qualifier_after,
    section_code,
    starts_whole,
    units,
)
from core.engines.offline.sources import applicability_text
from core.engines.offline.text_checks import sized_in_words
from core.engines.text import is_anaphoric, normalised, overlap, same_sentence, sentences, term_set

T = DeficiencyType
Reviser = Callable[[ResearchPlan, Answer, Deficiency, list[Evidence], EngineContext], Answer]
DISCLOSURE = "Sources disagree"


def _passages(
    ev: Iterable[Evidence], ctx: EngineContext, exclude: Iterable[str] = ()
) -> list[tuple[str, str, str, float]]:
    skip = set(exclude)
    return [
        (e.doc_id, e.chunk_id, ctx.passage(e.chunk_id) or " ".join(e.sentences) or e.snippet, e.score)
        for e in ev
        if e.doc_id not in skip
    ]


def _add_claims(
    answer: Answer,
    claims: Iterable[Claim],
    ctx: EngineContext,
    item: PlanItem | None,
    first: bool = False,
    after: Callable[[Claim], bool] | None = None,
) -> Answer:
    """The answer with the claims added to their section: at its end, first, or right after the first claim
    `after` accepts (the claim they specify); a claim every sentence of which is stated already is not added."""
    for claim in claims:
        said = _stated(answer)
        if all(normalised(s) in said for s in sentences(claim.text) or [claim.text]):
            continue  # every sentence of it is stated already: adding it would say it twice
        doc = ctx.catalog.get(claim.citations[0].doc_id) if claim.citations else None
        code = section_code(item, doc.jurisdiction) if item and doc else (doc.jurisdiction if doc else ANY_JURISDICTION)
        section = answer.section(code)
        existing = list(section.claims) if section else []
        at = next((n + 1 for n, c in enumerate(existing) if after is not None and after(c)), len(existing))
        answer = answer.with_claims(code, [claim, *existing] if first else [*existing[:at], claim, *existing[at:]])
    return answer


def fill(
    plan: ResearchPlan,
    answer: Answer,
    items: Iterable[PlanItem],
    ev: list[Evidence],
    ctx: EngineContext,
    exclude: Iterable[str] = (),
) -> Answer:
    """Claims for each item from the evidence, chosen as the drafter chooses them, within what is left of the
    item's word budget (at least one sentence: the correction must be able to say what it found)."""
    passages = _passages(ev, ctx, exclude)
    for item in items:
        if not item.answerable or item.aspect in (Aspect.comparison, Aspect.verdict):
            continue
        texts = answer_texts(answer)
        held: list[str] = []
        more: list[tuple[str, Quote, str]] = []
        room = item_budget(plan) - sum(len(c.text.split()) for _, c in answer.claims() if item.id in c.plan_item_ids)
        answer = _add_claims(
            answer,
            pick(
                candidates(item, passages, plan, ctx),
                item,
                texts,
                shared=held,
                named=plan.named_doc_ids,
                extend=more,
                budget=max(0, room),
            ),
            ctx,
            item,
        )
        if held:
            answer = also_answers(answer, held, item.id)
        answer = extended(answer, more, item.id)
    return answer


def _items_of(plan: ResearchPlan, d: Deficiency) -> list[PlanItem]:
    """The plan items a deficiency is about: its subject when that is an item, the items it names in its filter,
    all items of a missing jurisdiction, else the items of its section."""
    subject = parse_subject(d.deficiency_type, d.subject, [i.id for i in plan.items])
    if isinstance(subject, ItemSubject) and (item := plan.item(subject.item_id)) is not None:
        return [item]
    named = [i for i in plan.items if i.id in CorrectionFilter.of(d.correction_filter).items]
    if named:
        return named
    code = subject.code if isinstance(subject, JurisdictionSubject) else d.affected_section
    return [i for i in plan.items if i.jurisdiction in (code, ANY_JURISDICTION) and i.answerable]


def _without(answer: Answer, drop: Callable[[Claim], bool]) -> tuple[Answer, list[str]]:
    """The answer without the claims `drop` selects, and the plan items those claims answered."""
    items: list[str] = []
    for section in answer.sections:
        kept = [c for c in section.claims if not drop(c)]
        items += [i for c in section.claims if drop(c) for i in c.plan_item_ids]
        answer = answer.with_claims(section.jurisdiction, kept)
    return answer, list(dict.fromkeys(items))


def _metadata_claim(text: str, doc_ids: Iterable[str], items: Iterable[str], kind: str) -> Claim:
    return Claim(
        text=text,
        plan_item_ids=tuple(items),
        kind=kind,  # type: ignore[arg-type]
        citations=tuple(Quote(doc_id=d, chunk_id="", quote="") for d in dict.fromkeys(doc_ids)),
    )


def _stated(answer: Answer) -> set[str]:
    """What the answer states, normalised: each claim's text and each sentence of it (split once, not per lookup)."""
    return {normalised(s) for _, c in answer.claims() for s in (c.text, *sentences(c.text))}


def _has_text(answer: Answer, text: str) -> bool:
    """Whether the answer already states `text`: as a claim, or as one sentence of a longer claim."""
    return normalised(text) in _stated(answer)


def _applicability(plan: ResearchPlan, answer: Answer, doc_id: str, ctx: EngineContext, code: str) -> Answer:
    doc = ctx.catalog.get(doc_id)
    if doc is None:
        return answer
    if code == ANY_JURISDICTION:
        code = doc.jurisdiction
    preds = ctx.catalog.predecessors_in_force(doc.id, ctx.as_of)
    text = f"Applicability: {applicability_text(doc, preds)}"
    if _has_text(answer, text):
        return answer
    items = [i.id for i in plan.items if i.jurisdiction == code and i.aspect == Aspect.date]
    claim = _metadata_claim(text, [doc.id, *(p.id for p in preds)], items, "applicability")
    section = answer.section(code)
    return answer.with_claims(code, [claim, *(section.claims if section else ())])


def revise_outdated(
    plan: ResearchPlan, answer: Answer, d: Deficiency, ev: list[Evidence], ctx: EngineContext
) -> Answer:
    """A source not yet applicable gets its application date and the law that applies until then; any other
    outdated source is replaced by what applies now (a history claim the question asked for stays)."""
    subject = parse_subject(d.deficiency_type, d.subject, [i.id for i in plan.items])
    doc = ctx.catalog.get(subject.doc_id) if isinstance(subject, DocumentSubject) else None
    if doc is None:
        return answer
    if ctx.catalog.status_at(doc.id, ctx.as_of) == DocStatus.not_yet_applicable:
        preds = {p.id for p in ctx.catalog.predecessors_in_force(doc.id, ctx.as_of)}
        answer = _applicability(plan, answer, doc.id, ctx, d.affected_section or doc.jurisdiction)
        items = [
            i
            for i in _items_of(plan, d)
            if i.jurisdiction == ANY_JURISDICTION or same_jurisdiction(i.jurisdiction, doc.jurisdiction)
        ]
        return fill(plan, answer, items, [e for e in ev if e.doc_id in preds], ctx)
    answer, item_ids = _without(answer, lambda c: doc.id in c.doc_ids and not c.history)
    items = [i for i in plan.items if i.id in item_ids] or _items_of(plan, d)
    return fill(plan, answer, items, ev, ctx, exclude=[doc.id])


def revise_coverage(
    plan: ResearchPlan, answer: Answer, d: Deficiency, ev: list[Evidence], ctx: EngineContext
) -> Answer:
    """An unanswered item (or a whole jurisdiction) answered from the evidence found for it."""
    return fill(plan, answer, _items_of(plan, d), ev, ctx)


def revise_threshold(
    plan: ResearchPlan, answer: Answer, d: Deficiency, ev: list[Evidence], ctx: EngineContext
) -> Answer:
    """The claim with the wrong figure goes; the evidence's figure for the same items comes in. A correction kept
    to named documents (the act that changed the figure) puts in their sentence closest to the query (the one
    stating the change), in place of the claim and for the same items."""
    flt = CorrectionFilter.of(d.correction_filter)
    kept, item_ids = _without(answer, lambda c: bool(d.affected_text) and same_sentence(c.text, d.affected_text))
    if flt.doc_ids:
        found = _best_sentence([e for e in ev if e.doc_id in flt.doc_ids], ctx, d.suggested_correction_query, kept)
        if found is None:
            return answer
        item = plan.item(item_ids[0]) if item_ids else None
        return _add_claims(kept, [found.model_copy(update={"plan_item_ids": tuple(item_ids)})], ctx, item)
    items = [i for i in plan.items if i.id in item_ids] or _items_of(plan, d)
    return fill(plan, kept, items, ev, ctx, exclude=flt.exclude_doc_ids)


def _best_sentence(
    ev: list[Evidence],
    ctx: EngineContext,
    query: str,
    answer: Answer,
    keep: Callable[[str, str], bool] = lambda s, code: True,
) -> Claim | None:
    wanted = term_set(query)
    said = _stated(answer)
    best: tuple[float, Claim] | None = None
    for doc_id, chunk_id, text, _ in _passages(ev, ctx):
        doc = ctx.catalog.get(doc_id)
        if doc is None or ctx.catalog.status_at(doc_id, ctx.as_of) not in (
            DocStatus.in_force,
            DocStatus.not_yet_applicable,
        ):
            continue
        parts = units(text)
        for i, u in enumerate(parts):
            s = u.text
            score = overlap(wanted, s)
            if score < 0.5 or is_anaphoric(s) or not keep(s, doc.jurisdiction) or normalised(s) in said:
                continue
            if has_instructions(s) or not starts_whole(s) or (u.lead and any(normalised(u.lead) in t for t in said)):
                continue  # an instruction, a fragment, or a list the answer already quotes from
            after = qualifier_after(parts, i)
            if best is None or score > best[0]:
                quotes = tuple(Quote(doc_id=doc_id, chunk_id=chunk_id, quote=q) for q in (*u.quotes, *after))
                best = (score, Claim(text=" ".join((s, *after)), citations=quotes))
    return best[1] if best else None


def _item_for(plan: ResearchPlan, code: str, aspects: Iterable[Aspect]) -> list[str]:
    for aspect in aspects:
        for j in (code, ANY_JURISDICTION):
            item = plan.item(item_id(j, aspect))
            if item is not None:
                return [item.id]
    return []


def revise_exemption(
    plan: ResearchPlan, answer: Answer, d: Deficiency, ev: list[Evidence], ctx: EngineContext
) -> Answer:
    """Each exemption rule the answer omitted, in the words of the source."""
    code = d.affected_section or ANY_JURISDICTION
    items = _item_for(plan, code, (Aspect.exemption, Aspect.scope, Aspect.obligation))
    for rule in CorrectionFilter.of(d.correction_filter).rules or [d.suggested_correction_query]:
        claim = _best_sentence(ev, ctx, rule, answer)
        if claim is not None:
            answer = _add_claims(
                answer,
                [claim.model_copy(update={"plan_item_ids": tuple(items)})],
                ctx,
                plan.item(items[0]) if items else None,
            )
    return answer


def revise_contradiction(
    plan: ResearchPlan, answer: Answer, d: Deficiency, ev: list[Evidence], ctx: EngineContext
) -> Answer:
    """The disagreement is disclosed where it matters, naming the sources."""
    text = f"{DISCLOSURE} {d.description.rstrip('.')}; verify against the official text."
    if _has_text(answer, text):
        return answer
    code = d.affected_section or ANY_JURISDICTION
    claim = _metadata_claim(text, d.evidence_doc_ids, CorrectionFilter.of(d.correction_filter).items, "disclosure")
    section = answer.section(code)
    return answer.with_claims(code, [*(section.claims if section else ()), claim])


def revise_specificity(
    plan: ResearchPlan, answer: Answer, d: Deficiency, ev: list[Evidence], ctx: EngineContext
) -> Answer:
    """An application date from the metadata; a figure the question or the source calls for; an unsupported claim
    replaced; an unanswered plan item answered."""
    subject = parse_subject(d.deficiency_type, d.subject, [i.id for i in plan.items])
    if isinstance(subject, ItemSubject):
        return revise_coverage(plan, answer, d, ev, ctx)
    if isinstance(subject, OffTopicClaim):
        answer, dropped = _without(answer, lambda c: same_sentence(c.text, d.affected_text))
        asked = [i for i in plan.items if i.id in dropped] or _items_of(plan, d)
        return fill(plan, answer, asked, ev, ctx, exclude=CorrectionFilter.of(d.correction_filter).exclude_doc_ids)
    code = d.affected_section or ANY_JURISDICTION
    if isinstance(subject, DocumentPart) and subject.part == APPLICATION_DATE:
        return _applicability(plan, answer, subject.doc_id, ctx, code)
    if d.affected_text:
        answer, _ = _without(answer, lambda c: same_sentence(c.text, d.affected_text))
    wanted = CorrectionFilter.of(d.correction_filter)
    unit, values = wanted.unit, set(wanted.values)

    def states_figure(s: str, jurisdiction: str) -> bool:
        return not unit or any(
            f.unit == unit and (not values or f.value in values) for f in figures(s, currency_hint(jurisdiction))
        )

    claim = _best_sentence(ev, ctx, d.suggested_correction_query, answer, states_figure)
    if claim is None:
        return fill(plan, answer, _items_of(plan, d), ev, ctx)
    items = wanted.items or _item_for(plan, code, (Aspect.threshold, Aspect.verdict, Aspect.obligation))
    sized = subject.doc_id if isinstance(subject, DocumentPart) and subject.part == SIZE_THRESHOLD else None
    return _add_claims(
        answer,
        [claim.model_copy(update={"plan_item_ids": tuple(items)})],
        ctx,
        plan.item(items[0]) if items else None,
        after=(lambda c: sized in c.doc_ids and sized_in_words(c.said) is not None) if sized else None,
    )


REVISERS: dict[DeficiencyType, Reviser] = {
    T.outdated_source: revise_outdated,
    T.missing_jurisdiction: revise_coverage,
    T.incorrect_threshold: revise_threshold,
    T.missing_exemption: revise_exemption,
    T.contradictory_sources: revise_contradiction,
    T.insufficient_specificity: revise_specificity,
}
