"""The coverage verifier: every plan item needs a claim that supports it, or it is a deficiency.

A claim supports an item when it is tagged with the item, cites a passage of a source usable at the as-of date
(of the item's jurisdiction) and quotes it faithfully. An upload no analyst has verified supports nothing: a claim
resting only on such uploads stays in the answer, marked, but the item counts as unanswered. An item the corpus cannot answer (a jurisdiction it holds
no source for) is a deficiency no retrieval can fix: it is disclosed at once.
"""

from __future__ import annotations

from core.domain.answer import Answer, Claim, has_open_part, item_asks
from core.domain.corrections import ItemSubject, JurisdictionSubject, filter_of
from core.domain.gazetteer import currency_hint, names_listed, same_jurisdiction
from core.domain.plan import ANY_JURISDICTION, Aspect, PlanItem, ResearchPlan
from core.domain.records import Deficiency, DeficiencyType, Severity
from core.engines.base import EngineContext
from core.engines.offline.aspects import asks_how_often, states_need
from core.engines.offline.sources import usable
from core.engines.offline.verdicts import presents_as_pending
from core.engines.text import quote_in, yes_no_sentence

T = DeficiencyType


def supported(claim: Claim, plan: ResearchPlan, ctx: EngineContext, jurisdiction: str) -> bool:
    """Whether the claim rests on at least one faithful quote of a usable, vetted source of that jurisdiction
    (metadata claims, such as an application date, rest on the cited document itself)."""
    for q in claim.citations:
        ok, _ = usable(q.doc_id, plan, ctx)
        doc = ctx.catalog.get(q.doc_id)
        ok = ok or (doc is not None and presents_as_pending(claim, doc))
        if (
            not ok
            or doc is None
            or not (jurisdiction == ANY_JURISDICTION or same_jurisdiction(jurisdiction, doc.jurisdiction))
        ):
            continue
        if doc.provenance.unverified_upload:
            continue
        if claim.kind in ("applicability", "disclosure") or quote_in(q.quote, ctx.passage(q.chunk_id)):
            return True
    return False


def states_what_item_needs(claim: Claim, item: PlanItem, ctx: EngineContext, often: bool = False) -> bool:
    """Whether the claim's quotes state what the item's aspect needs (a deadline item a period or date, or how
    often when that is asked, a penalty item an amount, share, multiple or term, a "whom" item a body); metadata
    claims answer only what they are tagged with."""
    if claim.kind != "finding":
        return True
    quoted = " ".join(q.quote for q in claim.citations if quote_in(q.quote, ctx.passage(q.chunk_id)))
    doc = ctx.catalog.get(claim.citations[0].doc_id) if claim.citations else None
    return states_need(item.aspect, quoted, currency_hint(doc.jurisdiction) if doc is not None else (), often)


def answered_items(plan: ResearchPlan, answer: Answer, ctx: EngineContext) -> list[str]:
    """Ids of the plan items the answer supports; a comparison counts once two jurisdictions are answered, and a
    name the plan could not place once the answer's statements name it (the critic raises nothing for it then)."""
    answered: list[str] = []
    sections_with_support: set[str] = set()
    for code, claim in answer.claims():
        for item_id in claim.plan_item_ids:
            item = plan.item(item_id)
            if item is None or not item.answerable:
                continue
            if claim.kind == "disclosure" or has_open_part(claim):
                continue
            if supported(claim, plan, ctx, item.jurisdiction) and states_what_item_needs(
                claim, item, ctx, asks_how_often(plan.question)
            ):
                answered.append(item.id)
                if code != ANY_JURISDICTION:
                    sections_with_support.add(code)
    for item in plan.items:
        if item.aspect == Aspect.comparison and item.answerable and len(sections_with_support) > 1:
            answered.append(item.id)
    answered += answered_for_the_place(plan, set(answered))
    said = answer.said()  # a name the plan could not place is answered once the answer states it ("the IRP")
    answered += [i.id for i in plan.items if not i.answerable and plan.names_unplaced(i, said)]
    return list(dict.fromkeys(answered))


def answered_for_the_place(plan: ResearchPlan, answered: set[str]) -> list[str]:
    """Items of a wider jurisdiction the question does not name itself (the EU for "a company in Germany") that
    the named place's own sources answer: the wider law is planned to answer for the place, so once the place's
    own item of the same aspect is answered ("fines under Germany's act"), that part of the question is answered,
    and the union's silence on it is no gap of the answer. A place the corpus holds nothing of its own for keeps
    every wider item to answer."""
    named = {j.code for j in plan.jurisdictions}
    aspects_of = {(i.jurisdiction, i.aspect) for i in plan.items if i.id in answered}
    out = []
    for item in plan.items:
        if item.id in answered or item.jurisdiction in named or not item.answerable:
            continue
        if any(
            j.in_corpus and item.jurisdiction in j.answered_from() and (j.code, item.aspect) in aspects_of
            for j in plan.jurisdictions
        ):
            out.append(item.id)
    return out


def coverage_deficiencies(
    plan: ResearchPlan, answered: list[str], ctx: EngineContext, said: str = ""
) -> list[Deficiency]:
    """One deficiency per unanswered item; one per jurisdiction that has no supported claim at all; one per name
    the plan could not place that the answer's statements (`said`) do not name either."""
    out: list[Deficiency] = []
    done = set(answered)
    missing_codes: set[str] = set()
    for j in plan.jurisdictions:
        if j.in_corpus:
            continue
        missing_codes.add(j.code)
        what = (
            f"the corpus holds law of {names_listed(j.parts)}, answered on their own, but none of {j.name} as a whole"
            if j.parts
            else f"the corpus holds {j.via} sources, which apply in {j.name}, but none of {j.name}'s own law"
            if j.via
            else f"the corpus holds no source for {j.name}"
        )
        out.append(
            Deficiency(
                deficiency_type=T.missing_jurisdiction,
                subject=str(JurisdictionSubject(j.code)),
                severity=Severity.medium if j.via or j.parts else Severity.high,
                affected_section=j.code,
                correctable=False,
                description=f'The question asks about {j.name} ("{", ".join(j.named_as)}"); {what}.',
            )
        )
    for code in plan.answer_codes():
        items = [i for i in plan.items if i.jurisdiction == code and i.answerable]
        if items and not any(i.id in done for i in items):
            missing_codes.add(code)
            uploads = any(d.jurisdiction == code and d.provenance.unverified_upload for d in ctx.catalog.all())
            vetting = f" (the corpus' {code} uploads that no analyst has verified do not count)" if uploads else ""
            asked = [i for i in items if not i.supporting] or items
            out.append(
                Deficiency(
                    deficiency_type=T.missing_jurisdiction,
                    subject=str(JurisdictionSubject(code)),
                    severity=Severity.high,
                    affected_section=code,
                    description=(
                        f"The question asks about {code}, but no claim of the answer states, from {code} sources,"
                        f" {'; '.join(dict.fromkeys(i.aspect.asks for i in asked))}{vetting}."
                    ),
                    suggested_correction_query=items[0].query,
                    correction_filter=filter_of(jurisdictions=[code], items=[i.id for i in items]),
                )
            )
    for item in plan.items:
        if item.id in done or item.jurisdiction in missing_codes or item.aspect == Aspect.comparison or item.supporting:
            continue
        if not item.answerable:
            if plan.names_unplaced(item, said) is False:
                out.append(_unplaced(item))
            continue
        out.append(
            _facts_verdict_gap(item, plan)
            if item.aspect == Aspect.verdict and plan.verdict_on_facts
            else _item_gap(item, plan)
        )
    return out


def _unplaced(item: PlanItem) -> Deficiency:
    """A name the question uses that the plan could not place (a place, authority or instrument no jurisdiction or
    source of the corpus answers for): no retrieval can fix it, and an answer that says nothing about it is not
    an answer without problems."""
    return Deficiency(
        deficiency_type=T.insufficient_specificity,
        subject=str(ItemSubject(item.id)),
        severity=Severity.high,
        affected_section=ANY_JURISDICTION,
        correctable=False,
        description=(
            f"The plan could not place {item.ask}: no jurisdiction or source of the corpus answers for it, so the "
            "answer says nothing about it."
        ),
    )


def _facts_verdict_gap(item: PlanItem, plan: ResearchPlan) -> Deficiency:
    """The yes or no a question asks on facts it sets out: the offline engine quotes the rules but does not apply
    them to those facts, and no retrieval changes that, so the gap is disclosed at once."""
    asked = yes_no_sentence(plan.question) or plan.question
    return Deficiency(
        deficiency_type=T.insufficient_specificity,
        subject=str(ItemSubject(item.id)),
        severity=Severity.high,
        affected_section=item.jurisdiction,
        correctable=False,
        description=(
            f'The question asks for a yes or no on facts it sets out ("{asked}"); the rule engine quotes the '
            "rules it found but does not apply them to those facts: an analyst (or the model engine) must."
        ),
    )


def _item_gap(item: PlanItem, plan: ResearchPlan) -> Deficiency:
    code = item.jurisdiction
    return Deficiency(
        deficiency_type=T.insufficient_specificity,
        subject=str(ItemSubject(item.id)),
        severity=Severity.high,
        affected_section=code,
        description=f"The answer does not answer a part of the question: it does not state {item_asks(item, plan)}.",
        suggested_correction_query=item.query,
        correction_filter=filter_of(jurisdictions=[] if code == ANY_JURISDICTION else [code], items=[item.id]),
    )
