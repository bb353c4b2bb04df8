"""The LLM critic: the model's findings on the typed answer, turned into deficiencies with stable subjects.

Subjects take the forms the rule critic uses, so the same problem found by both gets the same ID and merges:
plan item ids for coverage, `CODE:ITEM:unit:value` for a wrong figure and `CODE:ITEM:date:YYYY-MM-DD` for a
wrong date (the model names the item and the figure, Python parses the figure), `ITEM:unit` for claims that
disagree, jurisdiction codes for missing jurisdictions, document ids for outdated sources, `doc-id:entity` for
missing exemptions and `claim:<first eight words>` for a claim pointed at by number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.domain.answer import Answer, Claim
from core.domain.corrections import (
    ClaimSubject,
    DateSubject,
    DocumentPart,
    DocumentSubject,
    FigureSubject,
    ItemUnit,
    JurisdictionSubject,
    filter_of,
    widened_if_tried,
)
from core.domain.figures import dates, figures
from core.domain.gazetteer import currency_hint
from core.domain.plan import ANY_JURISDICTION, ResearchPlan
from core.domain.quality import quality_score
from core.domain.records import Deficiency, DeficiencyType, Severity
from core.engines.base import CritiqueResult, EngineContext
from core.engines.llm.client import LlmClient, with_counts
from core.engines.llm.prompts import CRITIC_SYSTEM, critic_prompt
from core.engines.llm.schemas import FindingOut, FindingsOut

T = DeficiencyType
_CLAIM_NO = re.compile(r"(?:claim:)?\s*c(\d+)", re.I)


class _Subjects:
    """Resolves a finding's subject against the plan, the answer and the corpus."""

    def __init__(self, plan: ResearchPlan, answer: Answer, ctx: EngineContext):
        self.plan, self.answer, self.ctx = plan, answer, ctx
        self.items = {i.id.lower(): i for i in plan.items}
        self.codes = {c.lower(): c for c in (*ctx.catalog.jurisdictions(), *(j.code for j in plan.jurisdictions))}

    def code(self, raw: str) -> str | None:
        return self.codes.get(raw.strip().lower())

    def claim(self, raw: str) -> Claim | None:
        match = _CLAIM_NO.fullmatch(raw.strip())
        claims = self.answer.claims()
        n = int(match.group(1)) if match else 0
        return claims[n - 1][1] if 0 < n <= len(claims) else None

    def canonical(self, found: FindingOut) -> Deficiency | None:
        """A Deficiency in the rule critic's subject form, or None when the subject names nothing real."""
        kind = T(found.deficiency_type)
        head, _, figure = (p.strip() for p in found.subject.strip().strip("[]").partition("|"))
        item = self.items.get(head.lower())
        doc_head, _, tail = (p.strip() for p in head.partition(":"))
        doc = self.ctx.catalog.get(head) or self.ctx.catalog.get(doc_head)
        section: str = (
            self.code(found.affected_section)
            or (item.jurisdiction if item else None)
            or (doc.jurisdiction if doc else found.affected_section.strip()[:20])
        )
        flt: dict[str, Any] = {}
        evidence: tuple[str, ...] = ()
        if kind == T.outdated_source:
            if doc is None or tail:
                return None
            subject, evidence = str(DocumentSubject(doc.id)), (doc.id,)
            flt = filter_of(jurisdictions=[doc.jurisdiction], exclude_doc_ids=[doc.id])
        elif kind == T.missing_jurisdiction:
            if (code := self.code(head)) is None:
                return None
            subject, section, flt = str(JurisdictionSubject(code)), code, filter_of(jurisdictions=[code])
        elif kind == T.missing_exemption:
            if doc is None or not tail:
                return None
            entity = next((e.entity for e in doc.exemptions if e.entity.lower() == tail.lower()), tail)
            subject, evidence, flt = str(DocumentPart(doc.id, entity)), (doc.id,), filter_of(doc_ids=[doc.id])
        elif item is not None:
            if not item.answerable:
                return None  # the answer discloses it as a gap; no retrieval can fix it
            code = self._claim_section(item.id) or (
                section if item.jurisdiction == ANY_JURISDICTION else item.jurisdiction
            )
            named = self._item_subject(kind, item.id, code, figure)
            if named is None:
                return None
            subject = named
            flt = filter_of(jurisdictions=[] if code == ANY_JURISDICTION else [code], items=[item.id])
        elif kind == T.insufficient_specificity and (claim := self.claim(head)) is not None:
            subject, flt = str(ClaimSubject.of(claim.said)), filter_of(items=list(claim.plan_item_ids))
        elif kind == T.insufficient_specificity and doc is not None and tail:
            aspect = re.sub(r"\W+", "_", tail.lower()).strip("_")
            subject, evidence, flt = str(DocumentPart(doc.id, aspect)), (doc.id,), filter_of(doc_ids=[doc.id])
        else:
            return None
        query = found.suggested_correction_query.strip() or (item.query if item else found.description)
        return Deficiency(
            deficiency_type=kind,
            subject=subject,
            description=found.description.strip(),
            severity=Severity(found.severity),
            affected_section=section,
            suggested_correction_query=query,
            correction_filter=flt,
            evidence_doc_ids=evidence,
            origin="llm",
        )

    def _claim_section(self, item_id: str) -> str | None:
        """The section (`*` for the verdict) of the first claim answering the item, as the claim verifier names
        a wrong figure by it."""
        return next((code for code, c in self.answer.claims() if item_id in c.plan_item_ids), None)

    def _item_subject(self, kind: T, item_id: str, code: str, figure: str) -> str | None:
        """Coverage: the item id. A wrong figure or date: with its unit and value, as the claim verifier names it."""
        if kind == T.insufficient_specificity:
            return item_id
        if kind == T.contradictory_sources:
            found = figures(figure, currency_hint(code)) if figure else []
            return str(ItemUnit(item_id, found[0].unit)) if found else item_id
        if kind == T.incorrect_threshold:
            if found := figures(figure, currency_hint(code)):
                return str(FigureSubject(code, item_id, found[0].unit, found[0].value))
            if when := dates(figure):
                return str(DateSubject(code, item_id, when[0]))
        return None


class LlmCritic:
    """Finds deficiencies through the model; raises `LlmUnavailableError` when it cannot (see CompositeCritic).

    At most `max_findings` findings are kept per critique; the excess is dropped with a note.
    """

    name = "llm"

    def __init__(self, client: LlmClient, *, max_findings: int = 20):
        self.client = client
        self.max_findings = max_findings

    def critique(
        self, plan: ResearchPlan, answer: Answer, known: Sequence[Deficiency], ctx: EngineContext
    ) -> CritiqueResult:
        """The model's findings with canonical subjects, one per stable ID; the score has no plan share (the
        composite critic scores with the rule critic's answered items)."""
        out, usage, notes, fitted = self.client.fitted_call(
            "llm critic", FindingsOut, CRITIC_SYSTEM, lambda room: critic_prompt(plan, answer, known, ctx, room)
        )
        if fitted.cut:
            notes = (f"llm critic: {fitted.note()}", *notes)
        subjects = _Subjects(plan, answer, ctx)
        by_id = {d.id: d for d in known}
        found: dict[str, Deficiency] = {}
        dropped: list[str] = []
        for item in out.deficiencies[: self.max_findings]:
            d = subjects.canonical(item)
            if d is None:
                dropped.append(
                    f"llm critic: dropped a {item.deficiency_type.value} finding: subject {item.subject[:60]!r} "
                    "names nothing in the plan, the answer or the corpus"
                )
                continue
            found.setdefault(d.id, widened_if_tried(d, by_id.get(d.id)))
        if len(out.deficiencies) > self.max_findings:
            dropped.append(
                f"llm critic: dropped {len(out.deficiencies) - self.max_findings} finding(s) beyond "
                f"the cap of {self.max_findings}"
            )
        result = list(found.values())
        excess = max(0, len(out.deficiencies) - self.max_findings)
        return CritiqueResult(
            deficiencies=result,
            score=quality_score(result),
            critics=(self.name,),
            usage=with_counts(usage, dropped=len(dropped) - (excess > 0) + excess, left_out=fitted.cut),
            notes=(*notes, *dropped),
        )
