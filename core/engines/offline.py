"""Offline engine: an extractive drafter and six rule verifiers computed from the answer, its citations and
the corpus metadata at the as-of date. No network, deterministic, and nothing keyed to particular questions or
documents: every rule reads what the corpus front matter declares.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Iterable, Sequence

from core.engines.base import CritiqueResult, DraftResult, EngineContext
from core.engines.text import (
    REQUIREMENT_RE,
    Figure,
    answer_sections,
    best_sentences,
    cited_ids,
    figures,
    format_date,
    has_number_or_date,
    mentions_date,
    phrase_in,
    strip_citations,
    term_set,
    terms,
)
from core.retrieval.models import Catalog, DocStatus, DocumentMeta, Hit, Threshold
from core.state import Citation, Deficiency, DeficiencyType, Evidence, ResolutionStatus, Severity
from core.quality import quality_score

T = DeficiencyType
SENTENCES_PER_SECTION = 4
_FIGURE_WORDS = re.compile(r"threshold|percent|percentage|%|amount|limit|how much|trigger|figure|value", re.I)
NO_SOURCE_TEXT = "No retrieved source covers this jurisdiction."
DISCLOSURE = "Sources disagree"


# --------------------------------------------------------------------------------------------- shared helpers


def requested_jurisdictions(question: str, catalog: Catalog) -> list[str]:
    """Jurisdictions the question asks about: codes (case-sensitive), aliases and authorities the corpus declares."""
    found: dict[str, int] = {}
    for doc in catalog.all():
        code = doc.jurisdiction
        hit = re.search(r"(?<![\w-])" + re.escape(code) + r"(?![\w-])", question)
        names = [a for a in (*doc.aliases, doc.authority or "") if len(a) > 2]
        if hit or phrase_in(question, names):
            pos = hit.start() if hit else min(question.lower().find(n.lower()) for n in phrase_in(question, names))
            found[code] = min(found.get(code, pos), pos)
    return sorted(found, key=lambda c: found[c])


def citations_for(answer: str, ctx: EngineContext) -> list[Citation]:
    """Citation records for every corpus document the answer cites, with the status at the as-of date."""
    out = []
    for doc_id in cited_ids(answer):
        doc = ctx.catalog.get(doc_id)
        if doc is None:
            continue
        out.append(
            Citation(
                doc_id=doc.id,
                title=doc.title,
                jurisdiction=doc.jurisdiction,
                declared_status=doc.status.value,
                status_at_as_of=ctx.catalog.status_at(doc.id, ctx.as_of).value,
                effective=doc.effective,
                citation=doc.citation,
            )
        )
    return out


def _render(sections: dict[str, list[str]]) -> str:
    return "\n\n".join(f"## {head}\n" + "\n".join(lines) for head, lines in sections.items() if lines).strip()


def _parse(answer: str) -> dict[str, list[str]]:
    return {s.heading or "Answer": list(s.sentences) for s in answer_sections(answer)}


def _cite(sentence: str, *doc_ids: str) -> str:
    body = strip_citations(sentence).rstrip()
    return body + " " + " ".join(f"[{d}]" for d in dict.fromkeys(doc_ids))


def _same_sentence(a: str, b: str) -> bool:
    return strip_citations(a).strip().lower() == strip_citations(b).strip().lower()


def _applicability_sentence(doc: DocumentMeta, preds: Sequence[DocumentMeta]) -> str:
    name = short_name(doc)
    text = f"Applicability: {name} applies only from {format_date(doc.effective)}" if doc.effective else (
        f"Applicability: {name} is not yet applicable")
    if preds:
        text += "; until then " + " and ".join(short_name(p) for p in preds) + " apply"
    return _cite(text + ".", doc.id, *(p.id for p in preds))


def _threshold_terms(t: Threshold) -> set[str]:
    return term_set(t.name.replace("_", " "))


def _threshold_relevant(t: Threshold, question_terms: set[str]) -> bool:
    names = _threshold_terms(t)
    return bool(names) and len(names & question_terms) >= min(2, len(names))


def _fmt_threshold(t: Threshold) -> str:
    words = {">": "more than", ">=": "at least", "<=": "up to", "<": "below", "==": "exactly"}[t.comparator]
    value = f"{t.value:g}" if t.unit in ("percent", "days") else f"{t.value:,.0f}"
    unit = "%" if t.unit == "percent" else f" {t.unit}" if t.unit == "days" else ""
    return f"{words} {t.unit + ' ' if t.unit not in ('percent', 'days') else ''}{value}{unit}".strip()


def _matches(fig: Figure, t: Threshold) -> bool:
    return fig.unit == t.unit and abs(fig.value - t.value) < 1e-9


def _usable_at(doc: DocumentMeta, t: Threshold, as_of: date) -> bool:
    reference = max(as_of, doc.effective) if doc.effective else as_of
    return t.applies_at(reference)


# --------------------------------------------------------------------------------------------------- drafter


class OfflineDrafter:
    """Extractive drafter: one section per requested jurisdiction, built from the best cited sentences."""

    name = "offline"

    def draft(self, question: str, hits: Sequence[Hit], ctx: EngineContext) -> DraftResult:
        """Compose a cited answer per requested jurisdiction from the retrieved passages."""
        wanted = requested_jurisdictions(question, ctx.catalog)
        if not wanted:
            wanted = list(dict.fromkeys(h.jurisdiction for h in hits))[:3]
        prefer_figures = bool(_FIGURE_WORDS.search(question))
        q_terms = term_set(question)
        relevant = {
            (t.unit, t.value)
            for doc_id in {h.doc_id for h in hits}
            if (doc := ctx.catalog.get(doc_id)) is not None
            for t in doc.thresholds
            if _threshold_relevant(t, q_terms)
        }
        sections: dict[str, list[str]] = {}
        for code in wanted:
            picks = self._pick(question, [h for h in hits if h.jurisdiction == code], prefer_figures, relevant)
            sections[code] = picks or [NO_SOURCE_TEXT]
        answer = _render(sections)
        return DraftResult(answer=answer, citations=citations_for(answer, ctx))

    @staticmethod
    def _pick(question: str, hits: Sequence[Hit], prefer_figures: bool,
              relevant: set[tuple[str, float]]) -> list[str]:
        scored: list[tuple[float, str, str]] = []
        for rank, hit in enumerate(hits):
            for ov, sent in best_sentences(hit.text, question, 3, min_overlap=0.0):
                figs = figures(sent)
                bonus = 0.0
                if prefer_figures and figs:
                    bonus = 0.3 if any((f.unit, f.value) in relevant for f in figs) else 0.05
                scored.append((ov + bonus - 0.02 * rank, sent, hit.doc_id))
        scored.sort(key=lambda x: -x[0])
        out: list[str] = []
        for _, sent, doc_id in scored:
            if any(_same_sentence(sent, o) for o in out):
                continue
            out.append(_cite(sent, doc_id))
            if len(out) == SENTENCES_PER_SECTION:
                break
        return out

    def revise(
        self,
        question: str,
        answer: str,
        addressed: Sequence[Deficiency],
        evidence: Sequence[Evidence],
        ctx: EngineContext,
    ) -> DraftResult:
        """Apply each addressed correction with the evidence its retrieval found."""
        sections = _parse(answer)
        for d in addressed:
            ev = [e for e in evidence if e.deficiency_id == d.id]
            _REVISERS[d.deficiency_type](sections, d, ev, ctx)
        revised = _render(sections)
        return DraftResult(answer=revised, citations=citations_for(revised, ctx))


def _section_of(sections: dict[str, list[str]], code: str) -> list[str]:
    lines = sections.setdefault(code, [])
    if NO_SOURCE_TEXT in lines:
        lines.remove(NO_SOURCE_TEXT)
    return lines


def _add_evidence(lines: list[str], ev: Iterable[Evidence], query: str, n: int, *, want_unit: str | None = None,
                  want_values: Iterable[float] = (), want_any_figure: bool = False, exclude: Iterable[str] = ()) -> int:
    """Append up to `n` new evidence sentences that best match `query`; return how many were added.

    With `want_unit` only sentences stating a figure in that unit qualify, and with `want_values` only those
    stating one of those values.
    """
    excluded = set(exclude)
    values = set(want_values)
    pool: list[tuple[float, str, str]] = []
    for e in ev:
        if e.doc_id in excluded:
            continue
        for ov, sent in best_sentences(e.snippet, query, 8):
            figs = figures(sent)
            if want_unit and not any(f.unit == want_unit and (not values or f.value in values) for f in figs):
                continue
            if want_any_figure and not figs:
                continue
            pool.append((ov + e.score * 0.01, sent, e.doc_id))
    pool.sort(key=lambda x: -x[0])
    added = 0
    if n <= 0:
        return 0
    for _, sent, doc_id in pool:
        if any(_same_sentence(sent, line) for line in lines):
            continue
        lines.append(_cite(sent, doc_id))
        added += 1
        if added == n:
            break
    return added


def _in_force(ev: Sequence[Evidence], ctx: EngineContext) -> list[Evidence]:
    return [e for e in ev if e.doc_id in ctx.catalog and ctx.catalog.status_at(e.doc_id, ctx.as_of) == DocStatus.in_force]


def _add_preferring_in_force(lines: list[str], ev: Sequence[Evidence], ctx: EngineContext, query: str, n: int,
                             **kw: object) -> int:
    """Evidence from sources in force at as-of first; other usable evidence only when that finds nothing."""
    added = _add_evidence(lines, _in_force(ev, ctx), query, n, **kw)
    return added or _add_evidence(lines, ev, query, n, **kw)


def short_name(doc: DocumentMeta) -> str:
    """The document's first alias (its usual short name), else its title; flawed documents keep their full title
    so they are never confused with the instrument they misdescribe."""
    if doc.status in (DocStatus.erroneous, DocStatus.superseded) or not doc.aliases:
        return doc.title
    return doc.aliases[0]


def _revise_outdated(sections: dict[str, list[str]], d: Deficiency, ev: list[Evidence], ctx: EngineContext) -> None:
    doc = ctx.catalog.get(d.subject)
    if doc is None:
        return
    lines = _section_of(sections, d.affected_section or doc.jurisdiction)
    status = ctx.catalog.status_at(doc.id, ctx.as_of)
    if status == DocStatus.not_yet_applicable:
        preds = ctx.catalog.predecessors_in_force(doc.id, ctx.as_of)
        note = _applicability_sentence(doc, preds)
        if not any(_same_sentence(note, x) for x in lines):
            lines.insert(0, note)
        _add_evidence(lines, [e for e in ev if e.doc_id in {p.id for p in preds}], d.suggested_correction_query, 2)
        return
    for head, sec in sections.items():
        kept = []
        for line in sec:
            ids = cited_ids(line)
            if doc.id not in ids:
                kept.append(line)
            elif len(ids) > 1:
                kept.append(_cite(line, *[i for i in ids if i != doc.id]))
        sections[head] = kept
    _add_preferring_in_force(_section_of(sections, d.affected_section or doc.jurisdiction),
                             [e for e in ev if e.doc_id != doc.id], ctx, d.suggested_correction_query, 2)


def _revise_missing_jurisdiction(sections: dict[str, list[str]], d: Deficiency, ev: list[Evidence],
                                 ctx: EngineContext) -> None:
    lines = _section_of(sections, d.subject)
    pool = [e for e in ev if e.jurisdiction == d.subject]
    added = 0
    if _FIGURE_WORDS.search(d.suggested_correction_query):
        added = _add_preferring_in_force(lines, pool, ctx, d.suggested_correction_query, 2, want_any_figure=True)
    _add_preferring_in_force(lines, pool, ctx, d.suggested_correction_query, 3 - added)


def _revise_threshold(sections: dict[str, list[str]], d: Deficiency, ev: list[Evidence], ctx: EngineContext) -> None:
    for head, sec in sections.items():
        sections[head] = [line for line in sec if not (d.affected_text and _same_sentence(line, d.affected_text))]
    unit = d.correction_filter.get("unit")
    lines = _section_of(sections, d.affected_section)
    _add_preferring_in_force(lines, ev, ctx, d.suggested_correction_query, 2, want_unit=unit)


def _revise_exemption(sections: dict[str, list[str]], d: Deficiency, ev: list[Evidence], ctx: EngineContext) -> None:
    lines = _section_of(sections, d.affected_section)
    for rule in d.correction_filter.get("rules") or [d.suggested_correction_query]:
        _add_evidence(lines, ev, rule, 1)


def _revise_contradiction(sections: dict[str, list[str]], d: Deficiency, ev: list[Evidence], ctx: EngineContext) -> None:
    lines = _section_of(sections, d.affected_section)
    note = _cite(f"{DISCLOSURE} {d.description.rstrip('.')}; verify against the official text.", *d.evidence_doc_ids)
    if not any(_same_sentence(note, x) for x in lines):
        lines.append(note)


def _revise_specificity(sections: dict[str, list[str]], d: Deficiency, ev: list[Evidence], ctx: EngineContext) -> None:
    lines = _section_of(sections, d.affected_section)
    doc_id, _, aspect = d.subject.partition(":")
    doc = ctx.catalog.get(doc_id)
    if aspect == "application_date" and doc is not None:
        note = _applicability_sentence(doc, ctx.catalog.predecessors_in_force(doc.id, ctx.as_of))
        if not any(_same_sentence(note, x) for x in lines):
            lines.insert(0, note)
        return
    if d.affected_text:
        for head, sec in sections.items():
            sections[head] = [line for line in sec if not _same_sentence(line, d.affected_text)]
        lines = _section_of(sections, d.affected_section)
    _add_preferring_in_force(lines, ev, ctx, d.suggested_correction_query, 1, want_unit=d.correction_filter.get("unit"),
                             want_values=d.correction_filter.get("values", ()))


_REVISERS = {
    T.outdated_source: _revise_outdated,
    T.missing_jurisdiction: _revise_missing_jurisdiction,
    T.incorrect_threshold: _revise_threshold,
    T.missing_exemption: _revise_exemption,
    T.contradictory_sources: _revise_contradiction,
    T.insufficient_specificity: _revise_specificity,
}


# ---------------------------------------------------------------------------------------------------- critic


@dataclass(frozen=True)
class _Claim:
    section: str
    sentence: str
    doc_ids: tuple[str, ...]


def _claims(answer: str) -> list[_Claim]:
    out = []
    for sec in answer_sections(answer):
        for s in sec.sentences:
            out.append(_Claim(sec.heading, s, tuple(cited_ids(s))))
    return out


def _flt(**kw: object) -> dict:
    return {k: v for k, v in kw.items() if v}


class OfflineCritic:
    """Rule verifiers for all six deficiency types, driven by corpus metadata at the as-of date."""

    name = "rules"

    def critique(self, question: str, answer: str, known: Sequence[Deficiency], ctx: EngineContext) -> CritiqueResult:
        """Run every verifier; deficiencies are merged by stable ID."""
        claims = _claims(answer)
        found: dict[str, Deficiency] = {}
        for check in (
            self._outdated,
            self._missing_jurisdiction,
            self._thresholds,
            self._exemptions,
            self._contradictions,
            self._specificity,
        ):
            for d in check(question, claims, ctx):
                found.setdefault(d.id, d)
        tried = {d.id: d for d in known}
        result = [self._widen_if_tried(d, tried.get(d.id)) for d in found.values()]
        return CritiqueResult(deficiencies=result, score=quality_score(result), critics=(self.name,))

    @staticmethod
    def _widen_if_tried(d: Deficiency, before: Deficiency | None) -> Deficiency:
        """A correction query that already failed is not proposed again: drop the narrowest filter and widen."""
        tried = before is not None and (before.resolution_attempt_count > 0
                                        or before.resolution_status == ResolutionStatus.addressed)
        if not tried:
            return d
        if d.suggested_correction_query != before.suggested_correction_query:
            return d
        flt = {k: v for k, v in d.correction_filter.items() if k != "doc_ids"}
        query = f"{d.suggested_correction_query} {d.subject.replace(':', ' ').replace('_', ' ')}"
        return d.model_copy(update={"suggested_correction_query": query, "correction_filter": flt})

    # outdated_source ------------------------------------------------------------------------------------
    def _outdated(self, question: str, claims: list[_Claim], ctx: EngineContext) -> list[Deficiency]:
        out = []
        by_doc: dict[str, list[_Claim]] = {}
        for c in claims:
            for doc_id in c.doc_ids:
                by_doc.setdefault(doc_id, []).append(c)
        for doc_id, cs in by_doc.items():
            doc = ctx.catalog.get(doc_id)
            if doc is None:
                continue
            status = ctx.catalog.status_at(doc_id, ctx.as_of)
            section = cs[0].section
            if status == DocStatus.in_force:
                continue
            if status == DocStatus.not_yet_applicable:
                preds = ctx.catalog.predecessors_in_force(doc_id, ctx.as_of)
                cited_preds = [p for p in preds if any(p.id in c.doc_ids for c in claims)]
                if preds and not cited_preds:
                    out.append(Deficiency(
                        deficiency_type=T.outdated_source, subject=doc_id, severity=Severity.high,
                        affected_section=section,
                        description=(f"The answer applies {short_name(doc)} as current law, but at {format_date(ctx.as_of)} "
                                     f"it is not yet applicable (applies from {format_date(doc.effective) if doc.effective else 'a later date'}); "
                                     f"the rules that apply now come from {', '.join(short_name(p) for p in preds)}."),
                        suggested_correction_query=" ".join([*(short_name(p) for p in preds), question]),
                        correction_filter=_flt(doc_ids=[p.id for p in preds]),
                        evidence_doc_ids=(doc_id, *(p.id for p in preds)),
                    ))
                continue
            successors = ctx.catalog.successors(doc_id)
            severity = Severity.critical if status == DocStatus.erroneous else Severity.high
            what = {"erroneous": "is flagged as erroneous in the corpus",
                    "superseded": "has been superseded", "repealed": "no longer applies",
                    "proposed": "is only a proposal"}.get(status.value, status.value)
            repl = f" Use {', '.join(short_name(s) for s in successors)} instead." if successors else ""
            query = " ".join(short_name(s) for s in successors) if successors else f"{doc.jurisdiction} current rules"
            out.append(Deficiency(
                deficiency_type=T.outdated_source, subject=doc_id, severity=severity, affected_section=section,
                description=f"The answer cites {short_name(doc)}, which {what} at {format_date(ctx.as_of)}.{repl}",
                suggested_correction_query=f"{query} {question}".strip(),
                correction_filter=_flt(jurisdictions=[doc.jurisdiction], exclude_doc_ids=[doc_id]),
                evidence_doc_ids=(doc_id, *(s.id for s in successors)),
            ))
        return out

    # missing_jurisdiction --------------------------------------------------------------------------------
    def _missing_jurisdiction(self, question: str, claims: list[_Claim], ctx: EngineContext) -> list[Deficiency]:
        out = []
        cited_j = {ctx.catalog.get(i).jurisdiction for c in claims for i in c.doc_ids if i in ctx.catalog}
        for code in requested_jurisdictions(question, ctx.catalog):
            if code in cited_j:
                continue
            counts: dict[str, int] = {}
            for doc in ctx.catalog.all():
                if doc.jurisdiction == code:
                    for alias in doc.aliases:
                        counts[alias] = counts.get(alias, 0) + 1
            names = sorted(counts, key=lambda a: (-counts[a], a))[:2]
            out.append(Deficiency(
                deficiency_type=T.missing_jurisdiction, subject=code, severity=Severity.high, affected_section=code,
                description=f"The question asks about {code}, but the answer cites no {code} source.",
                suggested_correction_query=f"{question} {' '.join(names)}".strip(),
                correction_filter=_flt(jurisdictions=[code]),
            ))
        return out

    # incorrect_threshold ---------------------------------------------------------------------------------
    def _thresholds(self, question: str, claims: list[_Claim], ctx: EngineContext) -> list[Deficiency]:
        out = []
        for c in claims:
            figs = figures(strip_citations(c.sentence))
            if not figs:
                continue
            for doc_id in c.doc_ids:
                doc = ctx.catalog.get(doc_id)
                if doc is None:
                    continue
                status = ctx.catalog.status_at(doc_id, ctx.as_of)
                for fig in figs:
                    d = self._check_figure(fig, c, doc, status, ctx)
                    if d is not None:
                        out.append(d)
        return out

    def _check_figure(self, fig: Figure, c: _Claim, doc: DocumentMeta, status: DocStatus,
                      ctx: EngineContext) -> Deficiency | None:
        own = [t for t in doc.thresholds if _matches(fig, t)]
        if status in (DocStatus.erroneous, DocStatus.superseded, DocStatus.repealed):
            for t in own:
                right = self._authoritative(doc.jurisdiction, t.name, t.unit, ctx)
                if right and not any(_matches(fig, r) and r.comparator == t.comparator for _, r in right):
                    statement = "; ".join(f"{short_name(d)}: {_fmt_threshold(r)}" for d, r in right)
                    return self._threshold_deficiency(c, doc, t.name, fig, f"The answer states {fig.text} for {t.name.replace('_', ' ')} "
                                                      f"from {short_name(doc)} ({status.value}); the applicable rule is {statement}.",
                                                      [d.id for d, _ in right])
            return None
        verbatim = strip_citations(c.sentence).rstrip(".").lower() in ctx.doc_text(doc.id).lower()
        if verbatim:
            return None
        same_unit = [t for t in doc.thresholds if t.unit == fig.unit]
        if own:
            if fig.comparator and all(t.comparator != fig.comparator for t in own) and not _comparator_compatible(fig, own):
                t = own[0]
                return self._threshold_deficiency(c, doc, t.name, fig, f"The answer words the {t.name.replace('_', ' ')} threshold as "
                                                  f"'{fig.text}' with comparator {fig.comparator}, but {short_name(doc)} sets {_fmt_threshold(t)}.",
                                                  [doc.id])
            stale = [t for t in own if not _usable_at(doc, t, ctx.as_of)]
            if stale and len(stale) == len(own):
                t = stale[0]
                return self._threshold_deficiency(c, doc, t.name, fig, f"The figure {fig.text} for {t.name.replace('_', ' ')} in {short_name(doc)} "
                                                  f"does not apply at {format_date(ctx.as_of)}.", [doc.id])
            return None
        if same_unit and _number_text(fig) not in ctx.doc_text(doc.id):
            return self._threshold_deficiency(c, doc, f"{fig.unit}:{fig.value:g}", fig,
                                              f"The answer states {fig.text}, which {short_name(doc)} does not support.", [doc.id])
        return None

    @staticmethod
    def _authoritative(jurisdiction: str, name: str, unit: str, ctx: EngineContext) -> list[tuple[DocumentMeta, Threshold]]:
        """The same-named threshold in documents of the jurisdiction that apply at as-of (else the next to apply)."""
        for wanted in (DocStatus.in_force, DocStatus.not_yet_applicable):
            hits = [
                (d, t)
                for d in ctx.catalog.all()
                if d.jurisdiction == jurisdiction and ctx.catalog.status_at(d.id, ctx.as_of) == wanted
                for t in d.thresholds
                if t.name == name and t.unit == unit and _usable_at(d, t, ctx.as_of)
            ]
            if hits:
                return hits
        return []

    @staticmethod
    def _threshold_deficiency(c: _Claim, doc: DocumentMeta, name: str, fig: Figure, description: str,
                              evidence: list[str]) -> Deficiency:
        return Deficiency(
            deficiency_type=T.incorrect_threshold, subject=f"{doc.jurisdiction}:{name}", severity=Severity.critical,
            affected_section=c.section, affected_text=c.sentence, description=description,
            suggested_correction_query=f"{name.replace('_', ' ').replace(':', ' ')} threshold {doc.jurisdiction} {' '.join(doc.topics[:2])}",
            correction_filter=_flt(jurisdictions=[doc.jurisdiction], exclude_doc_ids=[doc.id], unit=fig.unit),
            evidence_doc_ids=tuple(dict.fromkeys([doc.id, *evidence])),
        )

    # missing_exemption -----------------------------------------------------------------------------------
    def _exemptions(self, question: str, claims: list[_Claim], ctx: EngineContext) -> list[Deficiency]:
        out = []
        q_terms = terms(question)
        cited = list(dict.fromkeys(i for c in claims for i in c.doc_ids))
        for doc_id in cited:
            doc = ctx.catalog.get(doc_id)
            if doc is None or ctx.catalog.status_at(doc_id, ctx.as_of) not in (DocStatus.in_force, DocStatus.not_yet_applicable):
                continue
            doc_claims = [c for c in claims if doc_id in c.doc_ids] + [c for c in claims if not c.doc_ids]
            missing: dict[str, list[str]] = {}
            for ex in doc.exemptions:
                if not _entity_in(ex.entity, q_terms):
                    continue
                clause = _main_clause(ex.rule)
                rule_terms = term_set(clause) - term_set(doc.title)
                best = max((len(rule_terms & term_set(c.sentence)) / max(1, len(rule_terms)) for c in doc_claims), default=0.0)
                if best < 0.5:
                    missing.setdefault(ex.entity, []).append(ex.rule)
            section = next((c.section for c in claims if doc_id in c.doc_ids), doc.jurisdiction)
            for entity, rules in missing.items():
                out.append(Deficiency(
                    deficiency_type=T.missing_exemption, subject=f"{doc_id}:{entity}", severity=Severity.high,
                    affected_section=section,
                    description=(f"The question concerns {entity}, and {short_name(doc)} has "
                                 f"{'a rule' if len(rules) == 1 else f'{len(rules)} rules'} for them the answer omits: "
                                 + " ".join(rules)),
                    suggested_correction_query=f"{entity} {' '.join(_main_clause(r) for r in rules)}",
                    correction_filter=_flt(doc_ids=[doc_id], rules=[_main_clause(r) for r in rules]),
                    evidence_doc_ids=(doc_id,),
                ))
        return out

    # contradictory_sources -------------------------------------------------------------------------------
    def _contradictions(self, question: str, claims: list[_Claim], ctx: EngineContext) -> list[Deficiency]:
        out = []
        q_terms = term_set(question)
        cited = [ctx.catalog.get(i) for i in dict.fromkeys(i for c in claims for i in c.doc_ids) if i in ctx.catalog]
        live = [d for d in cited if ctx.catalog.status_at(d.id, ctx.as_of) == DocStatus.in_force]
        groups: dict[tuple[str, str, str], list[tuple[DocumentMeta, Threshold]]] = {}
        for d in live:
            for t in d.thresholds:
                if t.applies_at(ctx.as_of) and _threshold_relevant(t, q_terms | _claim_terms(claims, d.id)):
                    groups.setdefault((d.jurisdiction, t.name, t.unit), []).append((d, t))
        for (code, name, unit), items in groups.items():
            if not _disagree(items):
                continue
            docs = list(dict.fromkeys(d.id for d, _ in items))
            if len(docs) == 1:
                statement = f"the sources summarised in {short_name(items[0][0])} give " + " or ".join(
                    _fmt_threshold(t) for _, t in items)
            else:
                statement = "; ".join(f"{short_name(d)} gives {_fmt_threshold(t)}" for d, t in items)
            section = next((c.section for c in claims if any(d.id in c.doc_ids for d, _ in items)), code)
            description = f"on the {name.replace('_', ' ')} figure in {code}: {statement}."
            disclosed = any(c.sentence.startswith(DISCLOSURE) and description.rstrip(".") in c.sentence for c in claims)
            out.append(Deficiency(
                deficiency_type=T.contradictory_sources, subject=f"{code}:{name}", severity=Severity.medium,
                affected_section=section, correctable=not disclosed,
                description=description + (" The answer discloses the disagreement." if disclosed else ""),
                suggested_correction_query=f"{name.replace('_', ' ')} {code} official figure",
                correction_filter=_flt(jurisdictions=[code]),
                evidence_doc_ids=tuple(dict.fromkeys(d.id for d, _ in items)),
            ))
        return out

    # insufficient_specificity ----------------------------------------------------------------------------
    def _specificity(self, question: str, claims: list[_Claim], ctx: EngineContext) -> list[Deficiency]:
        out = []
        for c in claims:
            if c.sentence == NO_SOURCE_TEXT:
                continue
            if REQUIREMENT_RE.search(c.sentence) and not c.doc_ids and not has_number_or_date(c.sentence):
                words = " ".join(strip_citations(c.sentence).split()[:8])
                out.append(Deficiency(
                    deficiency_type=T.insufficient_specificity, subject=f"claim:{words}", severity=Severity.medium,
                    affected_section=c.section, affected_text=c.sentence,
                    description=f"The requirement '{strip_citations(c.sentence)[:120]}' has no citation, figure or date.",
                    suggested_correction_query=strip_citations(c.sentence),
                ))
        cited = list(dict.fromkeys(i for c in claims for i in c.doc_ids))
        for doc_id in cited:
            doc = ctx.catalog.get(doc_id)
            if doc is None:
                continue
            status = ctx.catalog.status_at(doc_id, ctx.as_of)
            section = next(c.section for c in claims if doc_id in c.doc_ids)
            section_text = " ".join(c.sentence for c in claims if c.section == section)
            if status == DocStatus.not_yet_applicable and doc.effective and not mentions_date(section_text, doc.effective):
                out.append(Deficiency(
                    deficiency_type=T.insufficient_specificity, subject=f"{doc_id}:application_date",
                    severity=Severity.medium, affected_section=section,
                    description=f"The answer relies on {short_name(doc)} without saying it applies only from {format_date(doc.effective)}.",
                    suggested_correction_query="",
                    correction_filter=_flt(doc_ids=[doc_id]),
                    evidence_doc_ids=(doc_id,),
                ))
        if not any(c.doc_ids for c in claims):
            out.append(Deficiency(
                deficiency_type=T.insufficient_specificity, subject="answer:no cited source", severity=Severity.critical,
                affected_section=claims[0].section if claims else "Answer",
                description="The answer cites no source at all: nothing in it can be relied on.",
                suggested_correction_query=question,
            ))
        answer_figs = {(f.unit, f.value) for c in claims for f in figures(strip_citations(c.sentence))}
        first_section = claims[0].section if claims else ""
        for fig in figures(question):
            if (fig.unit, fig.value) in answer_figs:
                continue
            out.append(Deficiency(
                deficiency_type=T.insufficient_specificity, subject=f"question:{fig.value:g} {fig.unit}",
                severity=Severity.medium, affected_section=first_section,
                description=f"The question asks about {fig.text}, but the answer never addresses that figure.",
                suggested_correction_query=question,
                correction_filter=_flt(unit=fig.unit, values=[fig.value]),
            ))
        if not _FIGURE_WORDS.search(question):
            return out
        q_terms = term_set(question)
        for sec in dict.fromkeys(c.section for c in claims):
            sec_claims = [c for c in claims if c.section == sec]
            sec_docs = list(dict.fromkeys(i for c in sec_claims for i in c.doc_ids if i in ctx.catalog))
            for doc_id in sec_docs:
                doc = ctx.catalog.get(doc_id)
                if ctx.catalog.status_at(doc_id, ctx.as_of) not in (DocStatus.in_force, DocStatus.not_yet_applicable):
                    continue
                sec_figs = [f for c in sec_claims for f in figures(strip_citations(c.sentence))]
                seen: set[str] = set()
                for t in doc.thresholds:
                    if t.name in seen or not _threshold_relevant(t, q_terms) or not _usable_at(doc, t, ctx.as_of):
                        continue
                    seen.add(t.name)
                    named = [x for x in doc.thresholds if x.name == t.name]
                    stated = any(_matches(f, x) and f.comparator in (None, x.comparator) for f in sec_figs for x in named)
                    if stated:
                        continue
                    out.append(Deficiency(
                        deficiency_type=T.insufficient_specificity, subject=f"{doc_id}:{t.name}",
                        severity=Severity.medium, affected_section=sec,
                        description=(f"The question asks for figures, but the answer never states the "
                                     f"{t.name.replace('_', ' ')} figure that {short_name(doc)} sets "
                                     f"({_fmt_threshold(t)})."),
                        suggested_correction_query=f"{t.name.replace('_', ' ')} threshold {short_name(doc)}",
                        correction_filter=_flt(doc_ids=[doc_id], unit=t.unit, values=sorted({x.value for x in named})),
                        evidence_doc_ids=(doc_id,),
                    ))
        return out


def _main_clause(rule: str) -> str:
    """The rule up to its first semicolon or colon: what an answer must say, without the elaboration."""
    return re.split(r"[;:]", rule, maxsplit=1)[0]


def _claim_terms(claims: list[_Claim], doc_id: str) -> set[str]:
    return set().union(*[term_set(c.sentence) for c in claims if doc_id in c.doc_ids] or [set()])


def _entity_in(entity: str, text_terms: list[str]) -> bool:
    needed = [t for t in terms(entity)]
    return bool(needed) and all(n in text_terms for n in needed)


def _disagree(items: list[tuple[DocumentMeta, Threshold]]) -> bool:
    """Two figures for one threshold disagree when their scopes meet. Within one document, figures for different
    scopes are variants (e.g. a sector rule), so only figures declared for the same scope count."""
    for i, (da, ta) in enumerate(items):
        for db, tb in items[i + 1:]:
            if (ta.value, ta.comparator) == (tb.value, tb.comparator):
                continue
            if da.id == db.id and set(ta.applies_to) != set(tb.applies_to):
                continue
            if _scopes_overlap([ta, tb]):
                return True
    return False


def _scopes_overlap(items: list[Threshold]) -> bool:
    scopes = [set(t.applies_to) for t in items]
    if any(not s for s in scopes):
        return True
    return bool(set.intersection(*scopes)) if len(scopes) > 1 else True


def _comparator_compatible(fig: Figure, own: list[Threshold]) -> bool:
    """'25% or more' and 'at least 25%' mean the same; '==' caps accept any wording."""
    return any(t.comparator == "==" for t in own)


def _number_text(fig: Figure) -> str:
    return f"{fig.value:,.0f}" if fig.value >= 1000 else f"{fig.value:g}"
