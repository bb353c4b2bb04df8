"""Rule verifiers over the typed answer: claims against their quoted passages, sources against their status at
the as-of date, exemptions, contradictions and specificity against the corpus metadata. With the coverage
verifier they make the offline critic."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.domain.answer import Answer, Located
from core.domain.corrections import (
    APPLICATION_DATE,
    DocumentPart,
    DocumentSubject,
    QuestionFigure,
    filter_of,
    widened_if_tried,
)
from core.domain.documents import DocStatus
from core.domain.figures import Figure, figures, format_date, mentions_date, within
from core.domain.gazetteer import same_jurisdiction
from core.domain.plan import ANY_JURISDICTION, ResearchPlan
from core.domain.quality import quality_score
from core.domain.records import Deficiency, DeficiencyType, Severity
from core.engines.base import CritiqueResult, EngineContext
from core.engines.offline.claim_checks import check_amended_figures, check_claims, check_contradictions
from core.engines.offline.coverage import answered_items, coverage_deficiencies
from core.engines.offline.sources import short_name
from core.engines.offline.text_checks import check_relevance, check_text_exemptions, check_vague_size
from core.engines.offline.verdicts import presents_as_pending
from core.engines.text import facts_set_out, term_set

T = DeficiencyType


def check_sources(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """Cited sources that are erroneous, proposals, superseded or repealed (unless cited as the history the
    question asks about), or not yet applicable without the law that applies until then."""
    out: list[Deficiency] = []
    by_doc: dict[str, list[Located]] = {}
    for code, c in claims:
        if c.kind == "disclosure":
            continue
        for doc_id in c.doc_ids:
            by_doc.setdefault(doc_id, []).append((code, c))
    cited = {d for _, c in claims if c.kind in ("finding", "verdict") for d in c.doc_ids}
    """Documents the answer states something from (an application-date note names the predecessor, not its rules)."""
    for doc_id, located in by_doc.items():
        doc = ctx.catalog.get(doc_id)
        if doc is None:
            continue
        status = ctx.catalog.status_at(doc_id, ctx.as_of)
        section = located[0][0]
        if status == DocStatus.in_force or all(presents_as_pending(c, doc) for _, c in located):
            continue
        if status == DocStatus.not_yet_applicable:
            preds = ctx.catalog.predecessors_in_force(doc_id, ctx.as_of)
            pred_ids = {p.id for p in preds}
            items = {
                i
                for _, c in located
                if c.kind == "finding"
                for i in c.plan_item_ids
                if (item := plan.item(i)) is not None and same_jurisdiction(item.jurisdiction, doc.jurisdiction)
            }
            told = {
                i
                for _, c in claims
                if c.kind in ("finding", "verdict") and pred_ids & set(c.doc_ids)
                for i in c.plan_item_ids
            }
            untold = sorted(items - told)
            said_when = any(doc_id in c.doc_ids and c.kind == "applicability" for _, c in claims)
            # the answer applies the act as current law only until it states when the act applies and which law
            # applies until then (the applicability note the correction adds with the law in force for each item);
            # after that, the items only the act speaks to are answered as its future rules, not as current law
            if preds and (not any(p.id in cited for p in preds) or (untold and not said_when)):
                out.append(
                    Deficiency(
                        deficiency_type=T.outdated_source,
                        subject=str(DocumentSubject(doc_id)),
                        severity=Severity.high,
                        affected_section=section,
                        description=(
                            f"The answer applies {short_name(doc)} as current law, but at {format_date(ctx.as_of)} it is "
                            f"not yet applicable (applies from {format_date(doc.effective) if doc.effective else 'a later date'}); "
                            f"the rules that apply now come from {', '.join(short_name(p) for p in preds)}."
                        ),
                        suggested_correction_query=" ".join([*(short_name(p) for p in preds), plan.question]),
                        correction_filter=filter_of(doc_ids=[p.id for p in preds], items=untold or sorted(items)),
                        evidence_doc_ids=(doc_id, *(p.id for p in preds)),
                    )
                )
            continue
        if status.history and doc_id in plan.history_doc_ids and all(c.history for _, c in located):
            continue
        successors = ctx.catalog.successors(doc_id)
        what = {
            "erroneous": "is flagged as erroneous in the corpus",
            "superseded": "has been superseded",
            "repealed": "no longer applies",
            "proposed": "is only a proposal",
        }.get(status.value, status.value)
        repl = f" Use {', '.join(short_name(s) for s in successors)} instead." if successors else ""
        query = " ".join(short_name(s) for s in successors) if successors else ""
        out.append(
            Deficiency(
                deficiency_type=T.outdated_source,
                subject=str(DocumentSubject(doc_id)),
                severity=Severity.critical if status == DocStatus.erroneous else Severity.high,
                affected_section=section,
                description=f"The answer cites {short_name(doc)}, which {what} at {format_date(ctx.as_of)}.{repl}",
                suggested_correction_query=f"{query} {plan.question}".strip(),
                correction_filter=filter_of(
                    jurisdictions=[doc.jurisdiction],
                    exclude_doc_ids=[doc_id],
                    items=list({i for _, c in located for i in c.plan_item_ids}),
                ),
                evidence_doc_ids=(doc_id, *(s.id for s in successors)),
            )
        )
    return out


def _main_clause(rule: str) -> str:
    return re.split(r"[;:]", rule, maxsplit=1)[0]


def check_exemptions(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """Exemptions and applicability rules of the cited sources for the entity types the question names."""
    out: list[Deficiency] = []
    entities = set(plan.entity_types)
    if not entities:
        return out
    cited = list(dict.fromkeys(d for _, c in claims for d in c.doc_ids))
    for doc_id in cited:
        doc = ctx.catalog.get(doc_id)
        if doc is None or not ctx.catalog.status_at(doc_id, ctx.as_of).usable:
            continue
        doc_claims = [c for _, c in claims if doc_id in c.doc_ids]
        missing: dict[str, list[str]] = {}
        for ex in doc.exemptions:
            if ex.entity not in entities:
                continue
            rule_terms = term_set(_main_clause(ex.rule)) - term_set(doc.title)
            best = max((len(rule_terms & term_set(c.text)) / max(1, len(rule_terms)) for _, c in claims), default=0.0)
            if best < 0.5:
                missing.setdefault(ex.entity, []).append(ex.rule)
        section = next((code for code, c in claims if doc_id in c.doc_ids), doc.jurisdiction)
        for entity, rules in missing.items():
            out.append(
                Deficiency(
                    deficiency_type=T.missing_exemption,
                    subject=str(DocumentPart(doc_id, entity)),
                    severity=Severity.high,
                    affected_section=section,
                    description=(
                        f"The question concerns {entity}, and {short_name(doc)} has "
                        f"{'a rule' if len(rules) == 1 else f'{len(rules)} rules'} for them the answer omits: "
                        + " ".join(rules)
                    ),
                    suggested_correction_query=f"{entity} {' '.join(_main_clause(r) for r in rules)}",
                    correction_filter=filter_of(
                        doc_ids=[doc_id],
                        rules=[_main_clause(r) for r in rules],
                        items=list({i for c in doc_claims for i in c.plan_item_ids}),
                    ),
                    evidence_doc_ids=(doc_id,),
                )
            )
    return out


SAME_ORDER = 10
"""A figure of the same unit within this factor of an amount the asker gives of their own facts is the measure it
is held against: "a turnover of more than EUR 100 million" addresses "We are a group with EUR 85 million turnover"
(the rule does not reach it), "a fine of up to EUR 5 million" does not address a turnover of EUR 300 million. A
figure the question asks about ("What applies to a fine of CAD 250,000?") is addressed only by bounds that take it
in."""


def _measured(fig: Figure, stated: Sequence[Figure]) -> bool:
    """Whether a claim states a figure of the question's unit of the same order as it (`SAME_ORDER`): the bound the
    question's own amount is measured against, whether or not it reaches it."""
    return fig.value > 0 and any(
        s.unit == fig.unit and s.value > 0 and max(s.value, fig.value) / min(s.value, fig.value) < SAME_ORDER
        for s in stated
    )


def check_specificity(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """A source not yet applicable used without its application date; a figure the question names that the
    answer never addresses."""
    out: list[Deficiency] = []
    for doc_id in dict.fromkeys(d for _, c in claims for d in c.doc_ids):
        doc = ctx.catalog.get(doc_id)
        if doc is None or ctx.catalog.status_at(doc_id, ctx.as_of) != DocStatus.not_yet_applicable or not doc.effective:
            continue
        section = next(code for code, c in claims if doc_id in c.doc_ids)
        text = " ".join(c.text for _, c in claims)
        if not mentions_date(text, doc.effective):
            out.append(
                Deficiency(
                    deficiency_type=T.insufficient_specificity,
                    subject=str(DocumentPart(doc_id, APPLICATION_DATE)),
                    severity=Severity.medium,
                    affected_section=section,
                    description=f"The answer relies on {short_name(doc)} without saying it applies only from {format_date(doc.effective)}.",
                    suggested_correction_query="",
                    correction_filter=filter_of(doc_ids=[doc_id]),
                    evidence_doc_ids=(doc_id,),
                )
            )
    # bounds are read per clause: "£40 for a debt of less than £1,000; £70 for ... £1,000 or more but less than
    # £10,000; ..." takes in a £800 debt by its first tier, though not every bound of the sentence holds for it
    said = [figures(part) for _, c in claims for part in c.said.split(";")]
    stated = {f.key for figs in said for f in figs}
    own = {f.key for f in figures(facts_set_out(plan.question))}
    for fig in figures(plan.question):
        if fig.key in stated or any(within(fig.value, fig.unit, figs) for figs in said):
            continue  # stated, or a claim's bounds take it in ("USD 2,500 or more" for a USD 5,000 loan)
        if fig.key in own and any(_measured(fig, figs) for figs in said):
            continue  # the asker's own amount, and the bound it is measured against
        out.append(
            Deficiency(
                deficiency_type=T.insufficient_specificity,
                subject=str(QuestionFigure(fig.value, fig.unit)),
                severity=Severity.medium,
                affected_section=claims[0][0] if claims else ANY_JURISDICTION,
                description=f"The question asks about {fig.text}, but the answer never addresses that figure.",
                suggested_correction_query=plan.question,
                correction_filter=filter_of(unit=fig.unit, values=[fig.value]),
            )
        )
    return out


CHECKS = (
    check_sources,
    check_claims,
    check_amended_figures,
    check_exemptions,
    check_text_exemptions,
    check_contradictions,
    check_specificity,
    check_vague_size,
    check_relevance,
)


class OfflineCritic:
    """The rule critic: coverage and claim verifiers plus the metadata rules, merged by stable ID."""

    name = "rules"

    def critique(
        self, plan: ResearchPlan, answer: Answer, known: Sequence[Deficiency], ctx: EngineContext
    ) -> CritiqueResult:
        """Every verifier over the answer; the score counts the plan items left unanswered."""
        claims = answer.claims()
        answered = answered_items(plan, answer, ctx)
        found: dict[str, Deficiency] = {}
        for d in coverage_deficiencies(plan, answered, ctx, answer.said()):
            found.setdefault(d.id, d)
        for check in CHECKS:
            for d in check(plan, claims, ctx):
                found.setdefault(d.id, d)
        tried = {d.id: d for d in known}
        result = [widened_if_tried(d, tried.get(d.id)) for d in found.values()]
        score = quality_score(result, *plan.asked_share(answered))
        return CritiqueResult(deficiencies=result, score=score, critics=(self.name,), answered_items=tuple(answered))
