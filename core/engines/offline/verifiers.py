"""Rule verifiers over the typed answer: claims against their quoted passages, sources against their status at
the as-of date, exemptions, contradictions and specificity against the corpus metadata. With the coverage
verifier they make the offline critic."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from core.answer import Answer, Claim
from core.documents import DocStatus, DocumentMeta, Threshold
from core.engines.base import CritiqueResult, EngineContext
from core.engines.offline.coverage import answered_items, coverage_deficiencies
from core.engines.offline.sources import short_name
from core.engines.text import quote_in, term_set, terms
from core.figures import compatible, dates, figures, format_date, mentions_date
from core.gazetteer import currency_hint
from core.plan import ANY_JURISDICTION, ResearchPlan
from core.quality import quality_score
from core.state import Deficiency, DeficiencyType, ResolutionStatus, Severity, filter_of

T = DeficiencyType
_DISCLOSED = "Sources disagree"
Located = tuple[str, Claim]
SAME_RULE = 0.8
"""Two claims whose words (figures aside) overlap this much state the same rule."""


def _fmt(t: Threshold) -> str:
    words = {">": "more than", ">=": "at least", "<=": "up to", "<": "below", "==": "exactly"}[t.comparator]
    value = f"{t.value:g}" if t.unit in ("percent", "days") else f"{t.value:,.0f}"
    return (
        f"{words} {value}%"
        if t.unit == "percent"
        else f"{words} {value} days"
        if t.unit == "days"
        else f"{words} {t.unit} {value}"
    )


def check_claims(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """Each quote must occur in its cited passage, and each figure, comparator and date of a claim must be stated
    by the passages it quotes (not merely somewhere in the document)."""
    out: list[Deficiency] = []
    for code, c in claims:
        if c.kind in ("applicability", "disclosure"):
            continue
        words = " ".join(c.said.split()[:8])
        item = c.plan_item_ids[0] if c.plan_item_ids else code
        if not c.citations:
            out.append(
                Deficiency(
                    deficiency_type=T.insufficient_specificity,
                    subject=f"claim:{words}",
                    severity=Severity.high,
                    affected_section=code,
                    affected_text=c.text,
                    description=f"The claim '{c.said[:120]}' cites no source.",
                    suggested_correction_query=c.said,
                    correction_filter=filter_of(items=list(c.plan_item_ids)),
                )
            )
            continue
        faithful = [q for q in c.citations if quote_in(q.quote, ctx.passage(q.chunk_id))]
        if not faithful:
            out.append(
                Deficiency(
                    deficiency_type=T.insufficient_specificity,
                    subject=f"claim:{words}",
                    severity=Severity.high,
                    affected_section=code,
                    affected_text=c.text,
                    description=f"The claim '{c.said[:120]}' quotes nothing that its cited passage says.",
                    suggested_correction_query=c.said,
                    correction_filter=filter_of(items=list(c.plan_item_ids)),
                    evidence_doc_ids=c.doc_ids,
                )
            )
            continue
        quoted = " ".join(q.quote for q in faithful)
        source = ctx.catalog.get(faithful[0].doc_id)
        hint = currency_hint(code if code != ANY_JURISDICTION else (source.jurisdiction if source is not None else ""))
        supported = figures(quoted, hint)
        for fig in figures(c.said, hint):
            if any(compatible(fig, s) for s in supported):
                continue
            same = [s for s in supported if s.key == fig.key]
            what = (
                f"words {fig.text} as '{fig.comparator}' where the passage says '{same[0].comparator}'"
                if same
                else f"states {fig.text}, which the passage it quotes does not"
            )
            out.append(
                Deficiency(
                    deficiency_type=T.incorrect_threshold,
                    subject=f"{code}:{item}:{fig.unit}:{fig.value:g}",
                    severity=Severity.critical,
                    affected_section=code,
                    affected_text=c.text,
                    description=f"The claim '{c.said[:100]}' {what}.",
                    suggested_correction_query=asked.query if (asked := plan.item(item)) else c.said,
                    correction_filter=filter_of(
                        jurisdictions=[code] if code != ANY_JURISDICTION else [],
                        unit=fig.unit,
                        items=list(c.plan_item_ids),
                    ),
                    evidence_doc_ids=c.doc_ids,
                )
            )
        quoted_dates = set(dates(quoted))
        for d in dates(c.said):
            if d not in quoted_dates:
                out.append(
                    Deficiency(
                        deficiency_type=T.incorrect_threshold,
                        subject=f"{code}:{item}:date:{d.isoformat()}",
                        severity=Severity.high,
                        affected_section=code,
                        affected_text=c.text,
                        description=f"The claim '{c.said[:100]}' gives {format_date(d)}, which the passage it quotes does not.",
                        suggested_correction_query=asked.query if (asked := plan.item(item)) else c.said,
                        correction_filter=filter_of(
                            jurisdictions=[code] if code != ANY_JURISDICTION else [], items=list(c.plan_item_ids)
                        ),
                        evidence_doc_ids=c.doc_ids,
                    )
                )
    return out


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
        if status == DocStatus.in_force:
            continue
        if status == DocStatus.not_yet_applicable:
            preds = ctx.catalog.predecessors_in_force(doc_id, ctx.as_of)
            pred_ids = {p.id for p in preds}
            items = {
                i
                for _, c in located
                if c.kind == "finding"
                for i in c.plan_item_ids
                if (item := plan.item(i)) is not None and item.jurisdiction == doc.jurisdiction
            }
            told = {
                i
                for _, c in claims
                if c.kind in ("finding", "verdict") and pred_ids & set(c.doc_ids)
                for i in c.plan_item_ids
            }
            untold = sorted(items - told)
            if preds and (not any(p.id in cited for p in preds) or untold):
                out.append(
                    Deficiency(
                        deficiency_type=T.outdated_source,
                        subject=doc_id,
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
        if (
            status in (DocStatus.superseded, DocStatus.repealed)
            and doc_id in plan.history_doc_ids
            and all(c.history for _, c in located)
        ):
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
                subject=doc_id,
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
        if doc is None or ctx.catalog.status_at(doc_id, ctx.as_of) not in (
            DocStatus.in_force,
            DocStatus.not_yet_applicable,
        ):
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
                    subject=f"{doc_id}:{entity}",
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


def _relevant(t: Threshold, wanted: set[str]) -> bool:
    names = term_set(t.name.replace("_", " "))
    return bool(names) and len(names & wanted) >= min(2, len(names))


def check_contradictions(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """In-force cited sources that set different figures for the same threshold, and claims on the same plan item
    that state different figures for the same rule."""
    out: list[Deficiency] = []
    wanted = set(plan.topic_terms) | {t for _, c in claims for t in terms(c.text)}
    live = [
        d
        for d in (ctx.catalog.get(i) for i in dict.fromkeys(x for _, c in claims for x in c.doc_ids))
        if d is not None and ctx.catalog.status_at(d.id, ctx.as_of) == DocStatus.in_force
    ]
    groups: dict[tuple[str, str, str], list[tuple[DocumentMeta, Threshold]]] = {}
    for d in live:
        for t in d.thresholds:
            if t.applies_at(ctx.as_of) and _relevant(t, wanted):
                groups.setdefault((d.jurisdiction, t.name, t.unit), []).append((d, t))
    disclosed = [c.text for _, c in claims if c.kind == "disclosure"]
    for (code, name, _unit), items in groups.items():
        if not _disagree(items):
            continue
        statement = "; ".join(f"{short_name(d)} gives {_fmt(t)}" for d, t in items)
        description = f"on the {name.replace('_', ' ')} figure in {code}: {statement}."
        done = any(description.rstrip(".") in text for text in disclosed)
        section = next((cd for cd, c in claims if any(d.id in c.doc_ids for d, _ in items)), code)
        out.append(_contradiction(f"{code}:{name}", section, description, done, [d.id for d, _ in items], code, []))
    out += _claim_disagreements(claims, disclosed, ctx)
    return out


def _contradiction(
    subject: str, section: str, description: str, disclosed: bool, docs: Iterable[str], code: str, items: list[str]
) -> Deficiency:
    return Deficiency(
        deficiency_type=T.contradictory_sources,
        subject=subject,
        severity=Severity.medium,
        affected_section=section,
        correctable=not disclosed,
        description=description + (" The answer discloses the disagreement." if disclosed else ""),
        suggested_correction_query=f"{subject.split(':', 1)[-1].replace('_', ' ')} {code} official figure",
        correction_filter=filter_of(jurisdictions=[code] if code != ANY_JURISDICTION else [], items=items),
        evidence_doc_ids=tuple(dict.fromkeys(docs)),
    )


def _claim_disagreements(claims: Sequence[Located], disclosed: list[str], ctx: EngineContext) -> list[Deficiency]:
    """Two claims on one plan item, worded alike, that give different figures of the same unit."""
    out: list[Deficiency] = []

    def in_force(c: Claim) -> bool:
        return bool(c.doc_ids) and all(
            d in ctx.catalog and ctx.catalog.status_at(d, ctx.as_of) == DocStatus.in_force for d in c.doc_ids
        )

    plain = [(code, c) for code, c in claims if c.kind in ("finding", "verdict") and in_force(c)]
    for i, (code, a) in enumerate(plain):
        for code_b, b in plain[i + 1 :]:
            shared = set(a.plan_item_ids) & set(b.plan_item_ids)
            if not shared or code != code_b:
                continue
            fa, fb = figures(a.said, currency_hint(code)), figures(b.said, currency_hint(code))
            units = {f.unit for f in fa} & {f.unit for f in fb}
            for unit in units:
                va = {f.value for f in fa if f.unit == unit}
                vb = {f.value for f in fb if f.unit == unit}
                ta, tb = term_set(re.sub(r"[\d.,%]+", " ", a.said)), term_set(re.sub(r"[\d.,%]+", " ", b.said))
                alike = len(ta & tb) / max(1, len(ta | tb))
                if va.isdisjoint(vb) and alike >= SAME_RULE:
                    item = sorted(shared)[0]
                    description = (
                        f"on {item}: one claim gives {', '.join(f'{v:g}' for v in sorted(va))} and another "
                        f"{', '.join(f'{v:g}' for v in sorted(vb))} {unit} for the same rule."
                    )
                    done = any(description.rstrip(".") in text for text in disclosed)
                    out.append(
                        _contradiction(
                            f"{item}:{unit}", code, description, done, [*a.doc_ids, *b.doc_ids], code, [item]
                        )
                    )
    return out


def _disagree(items: list[tuple[DocumentMeta, Threshold]]) -> bool:
    """Figures for one threshold disagree when their scopes meet; within one document, figures for different
    scopes are variants (e.g. a sector rule)."""
    for i, (da, ta) in enumerate(items):
        for db, tb in items[i + 1 :]:
            if (ta.value, ta.comparator) == (tb.value, tb.comparator):
                continue
            if da.id == db.id and set(ta.applies_to) != set(tb.applies_to):
                continue
            scopes = [set(ta.applies_to), set(tb.applies_to)]
            if any(not s for s in scopes) or scopes[0] & scopes[1]:
                return True
    return False


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
                    subject=f"{doc_id}:application_date",
                    severity=Severity.medium,
                    affected_section=section,
                    description=f"The answer relies on {short_name(doc)} without saying it applies only from {format_date(doc.effective)}.",
                    suggested_correction_query="",
                    correction_filter=filter_of(doc_ids=[doc_id]),
                    evidence_doc_ids=(doc_id,),
                )
            )
    stated = {f.key for _, c in claims for f in figures(c.said)}
    for fig in figures(plan.question):
        if fig.key in stated:
            continue
        out.append(
            Deficiency(
                deficiency_type=T.insufficient_specificity,
                subject=f"question:{fig.value:g} {fig.unit}",
                severity=Severity.medium,
                affected_section=claims[0][0] if claims else ANY_JURISDICTION,
                description=f"The question asks about {fig.text}, but the answer never addresses that figure.",
                suggested_correction_query=plan.question,
                correction_filter=filter_of(unit=fig.unit, values=[fig.value]),
            )
        )
    return out


def widen_if_tried(d: Deficiency, before: Deficiency | None) -> Deficiency:
    """A correction query that already failed is not proposed again: drop the narrowest filter and widen it."""
    if before is None or d.suggested_correction_query != before.suggested_correction_query:
        return d
    if not (before.resolution_attempt_count > 0 or before.resolution_status == ResolutionStatus.addressed):
        return d
    flt = {k: v for k, v in d.correction_filter.items() if k != "doc_ids"}
    query = f"{d.suggested_correction_query} {d.subject.replace(':', ' ').replace('_', ' ')}"
    return d.model_copy(update={"suggested_correction_query": query, "correction_filter": flt})


CHECKS = (check_sources, check_claims, check_exemptions, check_contradictions, check_specificity)


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
        for d in coverage_deficiencies(plan, answered, ctx):
            found.setdefault(d.id, d)
        for check in CHECKS:
            for d in check(plan, claims, ctx):
                found.setdefault(d.id, d)
        tried = {d.id: d for d in known}
        result = [widen_if_tried(d, tried.get(d.id)) for d in found.values()]
        score = quality_score(result, answered=len(answered), planned=len(plan.items))
        return CritiqueResult(deficiencies=result, score=score, critics=(self.name,), answered_items=tuple(answered))
