"""The claim checks of the offline critic: every figure, comparator and date a claim states must be stated by the
passage it quotes, and sources (or claims) that give one rule different figures are contradictory."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import pairwise

from core.domain.answer import Claim, Located
from core.domain.corrections import (
    ClaimSubject,
    DateSubject,
    FigureSubject,
    ItemUnit,
    PeriodSubject,
    ThresholdSubject,
    filter_of,
    subject_words,
)
from core.domain.documents import DocStatus, DocumentMeta, Threshold
from core.domain.figures import Figure, compatible, dates, figures, format_date, periods
from core.domain.gazetteer import currency_hint, same_jurisdiction
from core.domain.plan import ANY_JURISDICTION, ResearchPlan
from core.domain.records import Deficiency, DeficiencyType, Severity
from core.engines.base import EngineContext
from core.engines.offline.sources import short_name
from core.engines.offline.verdicts import CHANGE_WORD, HEDGED
from core.engines.text import quote_in, sentences, term_set, terms

T = DeficiencyType
_DISCLOSED = "Sources disagree"
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
        item = c.plan_item_ids[0] if c.plan_item_ids else code
        faithful = [q for q in c.citations if quote_in(q.quote, ctx.passage(q.chunk_id))]
        if not faithful:
            why = "quotes nothing that its cited passage says" if c.citations else "cites no source"
            out.append(
                Deficiency(
                    deficiency_type=T.insufficient_specificity,
                    subject=str(ClaimSubject.of(c.said)),
                    severity=Severity.high,
                    affected_section=code,
                    affected_text=c.text,
                    description=f"The claim '{c.said[:120]}' {why}.",
                    suggested_correction_query=c.said,
                    correction_filter=filter_of(items=list(c.plan_item_ids)),
                    evidence_doc_ids=c.doc_ids,
                )
            )
            continue
        quoted = " ".join(q.quote for q in faithful)
        query = asked.query if (asked := plan.item(item)) else c.said
        source = ctx.catalog.get(faithful[0].doc_id)
        hint = currency_hint(code if code != ANY_JURISDICTION else (source.jurisdiction if source is not None else ""))
        # a cited document's own name ("... EUR 50,000 penalty", named in a verdict's lead) is the corpus' fact
        # about it, as its dates are (below)
        cited = [d for d in (ctx.catalog.get(i) for i in c.doc_ids) if d is not None]
        names = " ".join(" ".join((d.title, d.citation or "", *d.aliases)) for d in cited)
        supported = figures(f"{quoted} {names}", hint)
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
                _misstated(
                    code, c, query, FigureSubject(code, item, fig.unit, fig.value), Severity.critical, what, fig.unit
                )
            )
        # a cited document's own date (when it applies), and a date or period in its name ("Commission proposal of
        # 3 May 2023", "bill to cut the maximum working week from 40 to 37.5 hours", named in a verdict's lead), are
        # the corpus' facts about it, not figures to quote
        quoted_dates = set(dates(quoted)) | {d.effective for d in cited if d.effective} | set(dates(names))
        stated_periods = {_length(p) for p in periods(f"{quoted} {names}")}
        for period in periods(c.said):
            if _length(period) not in stated_periods:
                what = f"gives the period '{period}', which the passage it quotes does not"
                out.append(_misstated(code, c, query, PeriodSubject(code, item, period), Severity.high, what))
        for d in dates(c.said):
            if d not in quoted_dates:
                what = f"gives {format_date(d)}, which the passage it quotes does not"
                out.append(_misstated(code, c, query, DateSubject(code, item, d), Severity.high, what))
    return out


def _length(period: str) -> str:
    """A period without the words that place it ("within 30 days" -> "30 days")."""
    return re.sub(
        r"^(?:(?:with)?in|no later than|not later than|at (?:the )?latest|up to|for|at least|before|after)\s+",
        "",
        period.lower(),
    )


def _misstated(
    code: str,
    c: Claim,
    query: str,
    subject: FigureSubject | DateSubject | PeriodSubject,
    severity: Severity,
    what: str,
    unit: str = "",
) -> Deficiency:
    """A figure or date the claim states and its quoted passage does not: corrected by retrieving for the claim's
    item in its own jurisdiction (and, for a figure, its unit)."""
    return Deficiency(
        deficiency_type=T.incorrect_threshold,
        subject=str(subject),
        severity=severity,
        affected_section=code,
        affected_text=c.text,
        description=f"The claim '{c.said[:100]}' {what}.",
        suggested_correction_query=query,
        correction_filter=filter_of(
            jurisdictions=[code] if code != ANY_JURISDICTION else [], unit=unit, items=list(c.plan_item_ids)
        ),
        evidence_doc_ids=c.doc_ids,
    )


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
        out.append(
            _contradiction(ThresholdSubject(code, name), section, description, done, [d.id for d, _ in items], code, [])
        )
    out += _claim_disagreements(claims, disclosed, ctx)
    return out


def _contradiction(
    subject: ThresholdSubject | ItemUnit,
    section: str,
    description: str,
    disclosed: bool,
    docs: Iterable[str],
    code: str,
    items: list[str],
) -> Deficiency:
    what = subject.name if isinstance(subject, ThresholdSubject) else f"{subject.item_id} {subject.unit}"
    return Deficiency(
        deficiency_type=T.contradictory_sources,
        subject=str(subject),
        severity=Severity.medium,
        affected_section=section,
        correctable=not disclosed,
        description=description + (" The answer discloses the disagreement." if disclosed else ""),
        suggested_correction_query=f"{subject_words(what)} {code} official figure",
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
                            ItemUnit(item, unit), code, description, done, [*a.doc_ids, *b.doc_ids], code, [item]
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


FROM_TO = (re.compile(r"\bfrom\s*$", re.I), re.compile(r"\s*to\s*", re.I))
"""The words around a change of figure: "from <old> to <new>"."""


@lru_cache(maxsize=1024)
def stated_changes(text: str, hint: tuple[str, ...] = ()) -> tuple[tuple[str, Figure, Figure], ...]:
    """The sentences of a text that state a figure changed ("raises the threshold ... from EUR 5,000 to EUR
    20,000"), each with the old and the new figure; a change stated as possible or planned is not one."""
    out = []
    for s in sentences(text):
        if not CHANGE_WORD.search(s) or HEDGED.search(s):
            continue
        found = figures(s, hint)
        for old, new in pairwise(found):
            if (
                old.unit == new.unit
                and old.value != new.value
                and FROM_TO[0].search(s[: old.start])
                and FROM_TO[1].fullmatch(s[old.end : new.start])
            ):
                out.append((s, old, new))
    return tuple(out)


def check_amended_figures(plan: ResearchPlan, claims: Sequence[Located], ctx: EngineContext) -> list[Deficiency]:
    """A figure a claim states as the rule that a later source in force of the same jurisdiction says was changed,
    in a sentence on the same rule (two words shared, figures aside): "the notification duty applies once EUR 5,000
    has been reached" from the 2014 regulation, when the 2024 amending act "raises the threshold ... from EUR 5,000
    to EUR 20,000". Supersession read from the text, for documents whose front matter declares none; corrected by
    retrieving from the amending source."""
    out: list[Deficiency] = []
    live = [
        (d, d.effective)
        for d in ctx.catalog.all()
        if d.effective is not None and ctx.catalog.status_at(d.id, ctx.as_of) == DocStatus.in_force
    ]
    stated_by = {d for _, c in claims for d in c.doc_ids}
    changes: dict[str, tuple[tuple[str, Figure, Figure], ...]] = {}
    for code, c in claims:
        sources = [s for d in c.doc_ids if (s := ctx.catalog.get(d)) is not None and s.effective is not None]
        if c.kind not in ("finding", "verdict") or c.history or not sources or len(sources) < len(c.doc_ids):
            continue
        place = sources[0].jurisdiction
        latest = max(s.effective for s in sources if s.effective is not None)
        hint = currency_hint(place)
        stated = figures(c.said, hint)
        words = term_set(re.sub(r"[\d.,%]+", " ", c.said))
        for doc, since in live:
            if doc.id in stated_by or since <= latest or not same_jurisdiction(doc.jurisdiction, place):
                continue
            if doc.id not in changes:  # each later source is read once per critique, whatever its claims
                changes[doc.id] = stated_changes(ctx.doc_text(doc.id), currency_hint(doc.jurisdiction))
            change = next(
                (
                    (sentence, old, new)
                    for sentence, old, new in changes[doc.id]
                    if any(f.key == old.key for f in stated)
                    and not any(f.key == new.key for f in stated)
                    and len(words & term_set(re.sub(r"[\d.,%]+", " ", sentence))) >= 2
                ),
                None,
            )
            if change is None:
                continue
            sentence, old, new = change
            item = c.plan_item_ids[0] if c.plan_item_ids else code
            out.append(
                Deficiency(
                    deficiency_type=T.incorrect_threshold,
                    subject=str(FigureSubject(code, item, old.unit, old.value)),
                    severity=Severity.high,
                    affected_section=code,
                    affected_text=c.text,
                    description=(
                        f"The claim '{c.said[:100]}' gives {old.text}, which {short_name(doc)} (in force since "
                        f"{format_date(since)}) changed to {new.text}."
                    ),
                    suggested_correction_query=sentence,
                    correction_filter=filter_of(doc_ids=[doc.id], items=list(c.plan_item_ids)),
                    evidence_doc_ids=(*c.doc_ids, doc.id),
                )
            )
            break
    return out


def amends_a_cited_figure(c: Claim, claims: Sequence[Located], ctx: EngineContext) -> bool:
    """Whether the claim states that a figure changed ("from EUR 5,000 to EUR 20,000") and another document the
    answer cites states the old figure: it speaks of the rule the answer rests on, in the amending act's words."""
    others = {d for _, o in claims for d in o.doc_ids} - set(c.doc_ids)
    changed = [old for _, old, _ in stated_changes(c.said)]
    return bool(changed) and any(
        any(f.key == old.key for f in figures(ctx.doc_text(d)) for old in changed) for d in others
    )
