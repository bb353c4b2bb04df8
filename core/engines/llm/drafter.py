"""The LLM drafter: a typed answer through the model, every claim checked against the passages it was given."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from core.domain.answer import Answer, Claim, ClaimKind, Gap, Quote, gap_for
from core.domain.documents import Hit
from core.domain.gazetteer import jurisdiction_key
from core.domain.instructions import has_instructions
from core.domain.plan import ANY_JURISDICTION, Aspect, ResearchPlan
from core.domain.records import Deficiency, Evidence
from core.engines.base import Drafter, DraftResult, EngineContext
from core.engines.llm.client import LlmClient, LlmUnavailableError, add_usage, with_counts
from core.engines.llm.prompts import DRAFT_SYSTEM, REVISE_SYSTEM, draft_prompt, revise_prompt
from core.engines.llm.schemas import AnswerOut, ClaimOut
from core.engines.offline.sources import cited
from core.engines.text import quote_in, same_sentence

BARE_VERDICT = re.compile(r"\s*(?:yes|no)\W*", re.I)
"""A model verdict that says only "Yes." or "No.": it states nothing an analyst can check against its quote (one
cited the word "No" of a passage for its "Yes.")."""


@dataclass(frozen=True)
class Given:
    """A passage the model was shown: its document and the texts a quote of it may be checked against."""

    doc_id: str
    texts: tuple[str, ...]


def _flat(text: str) -> str:
    body = " ".join(text.split()).lstrip("#").strip()
    return body if not body or body[-1] in ".!?:" else body + "."


class AnswerBuilder:
    """Turns the model's answer into an `Answer`, keeping only what the pipeline can check.

    A citation must name a chunk the model was given (a document id stands for its chunk when exactly one chunk
    of it was given) and quote text that occurs in that passage (white space and case normalised); a claim left
    without a valid citation is dropped; plan item ids not in the plan are dropped; sections must be a planned
    jurisdiction or the jurisdiction of a passage given, by its code or an alias of it ("UK" for GB); a claim
    repeated word for word in a section is kept once with the items and citations of both; at most `max_claims`
    claims are kept. Each drop is noted.
    """

    def __init__(self, plan: ResearchPlan, given: Mapping[str, Given], ctx: EngineContext, max_claims: int):
        self.plan, self.given, self.ctx, self.max_claims = plan, given, ctx, max_claims
        self.notes: list[str] = []
        by_doc: dict[str, list[str]] = {}
        for chunk_id, g in given.items():
            by_doc.setdefault(g.doc_id, []).append(chunk_id)
        self._only_chunk = {doc: chunks[0] for doc, chunks in by_doc.items() if len(chunks) == 1}
        codes = {*plan.answer_codes(), *(j.code for j in plan.jurisdictions)}
        codes |= {doc.jurisdiction for g in given.values() if (doc := ctx.catalog.get(g.doc_id))}
        self._codes = {c.lower(): c for c in codes}
        self._by_key = {jurisdiction_key(c): c for c in codes}  # "UK" heads the section of a plan's GB
        self._kept = 0
        self._over = 0

    def build(self, out: AnswerOut, gaps: Sequence[Gap]) -> tuple[Answer, tuple[str, ...]]:
        """The validated answer with `gaps` (the items the corpus cannot answer) and notes on what was dropped."""
        verdict = None
        if out.verdict is not None:
            if self.plan.yes_no and BARE_VERDICT.fullmatch(_flat(out.verdict.text)):
                # "Yes." citing the word "No" of a passage: a bare word states nothing the analyst can check
                self.notes.append("llm drafter: dropped a verdict that states no more than yes or no")
            elif self.plan.yes_no:
                verdict = self._claim(out.verdict, "verdict")
            else:
                self.notes.append("llm drafter: dropped a verdict: the question is not a yes/no question")
        answer = Answer(verdict=verdict)
        for section in out.sections:
            heading = " ".join(section.jurisdiction.split()).strip("# ")
            code = self._codes.get(heading.lower()) or self._by_key.get(jurisdiction_key(heading.upper()))
            if code is None:
                self.notes.append(
                    f"llm drafter: dropped a section headed {section.jurisdiction[:40]!r}: "
                    "not a jurisdiction of the plan or of the passages given"
                )
                continue
            existing = answer.section(code)
            claims = {c.text: c for c in (existing.claims if existing else ())}
            for raw in section.claims:
                claim = self._claim(raw, "finding")
                if claim is not None:
                    claims[claim.text] = _merged(claims.get(claim.text), claim)
            answer = answer.with_claims(code, claims.values())
        if self._over:
            self.notes.append(f"llm drafter: dropped {self._over} claim(s) beyond the cap of {self.max_claims}")
        return answer.model_copy(update={"gaps": tuple(gaps)}), tuple(self.notes)

    def _claim(self, raw: ClaimOut, kind: ClaimKind) -> Claim | None:
        text = _flat(raw.text)
        if not text:
            return None
        if has_instructions(text) or any(has_instructions(c.quote) for c in raw.citations):
            self.notes.append(
                f"llm drafter: dropped a claim repeating an instruction addressed to a model: {text[:80]!r}"
            )
            return None
        quotes = tuple(dict.fromkeys(q for c in raw.citations if (q := self._quote(c.chunk_id, c.quote, text))))
        if not quotes:
            self.notes.append(f"llm drafter: dropped a claim without a valid citation: {text[:80]!r}")
            return None
        ids = [i.strip() for i in raw.plan_item_ids]
        unknown = [i for i in ids if self.plan.item(i) is None]
        if unknown:
            self.notes.append(f"llm drafter: dropped plan item id(s) {', '.join(unknown)[:80]}: not in the plan")
        items = tuple(dict.fromkeys(i for i in ids if i not in unknown))
        if kind == "verdict" and not items:
            items = tuple(i.id for i in self.plan.items if i.aspect == Aspect.verdict)
        if self._kept >= self.max_claims:
            self._over += 1
            return None
        self._kept += 1
        history = any(
            self.ctx.catalog.status_at(q.doc_id, self.ctx.as_of).history and q.doc_id in self.plan.history_doc_ids
            for q in quotes
        )
        return Claim(text=text, plan_item_ids=items, citations=quotes, kind=kind, history=history)

    def _quote(self, chunk_id: str, quote: str, claim: str) -> Quote | None:
        cid = chunk_id.strip().strip("[]")
        cid = cid if cid in self.given else self._only_chunk.get(cid, cid)
        given = self.given.get(cid)
        if given is None:
            self.notes.append(f"llm drafter: dropped a citation of {cid[:60]!r}: not among the passages given")
            return None
        said = " ".join(quote.split()).strip("\"'“”‘’ ")
        if not any(quote_in(said, t) for t in (self.ctx.passage(cid), *given.texts)):
            self.notes.append(
                f"llm drafter: dropped a citation of {cid}: its quote is not in that passage (claim {claim[:60]!r})"
            )
            return None
        return Quote(doc_id=given.doc_id, chunk_id=cid, quote=said)


def _merged(before: Claim | None, claim: Claim) -> Claim:
    """A claim repeated word for word answers the items and keeps the citations of both."""
    if before is None:
        return claim
    return before.model_copy(
        update={
            "plan_item_ids": tuple(dict.fromkeys((*before.plan_item_ids, *claim.plan_item_ids))),
            "citations": tuple(dict.fromkeys((*before.citations, *claim.citations))),
        }
    )


def _given_hits(hits: Mapping[str, Sequence[Hit]], shown: set[str]) -> dict[str, Given]:
    return {h.chunk_id: Given(h.doc_id, (h.text,)) for found in hits.values() for h in found if h.chunk_id in shown}


def unanswered(plan: ResearchPlan, answer: Answer, hits: Mapping[str, Sequence[Hit]]) -> list[str]:
    """Ids of the answerable plan items that have retrieved passages but no claim of the answer."""
    said = {i for _, c in answer.claims() for i in c.plan_item_ids}
    return [i.id for i in plan.items if i.answerable and hits.get(i.id) and i.id not in said]


def kept_on_lost_items(
    before: Answer, revised: Answer, addressed: Sequence[Deficiency]
) -> tuple[Answer, tuple[str, ...]]:
    """The hybrid floor of a revision: plan items the current answer answered and the model's revision no longer
    does keep their current claims (a small model may return a revision without them), except a claim an addressed
    deficiency names; and the note saying so ('' when nothing was lost)."""
    said = {i for _, c in revised.claims() for i in c.plan_item_ids}
    named = {d.affected_text for d in addressed if d.affected_text}
    lost = {i for _, c in before.claims() for i in c.plan_item_ids} - said
    carried = [
        (code, c)
        for code, c in before.claims()
        if c.kind != "verdict" and set(c.plan_item_ids) & lost and not any(same_sentence(c.text, n) for n in named)
    ]
    for code, claim in carried:
        section = revised.section(code)
        revised = revised.with_claims(code, (*(section.claims if section else ()), claim))
    if not carried:
        return revised, ()
    items = sorted({i for _, c in carried for i in c.plan_item_ids} & lost)
    return revised, (
        f"llm reviser: the model's revision no longer answered {len(items)} item(s) ({', '.join(items)}); "
        f"kept the current answer's {len(carried)} claim(s) on them",
    )


def _given_revision(answer: Answer, evidence: Sequence[Evidence]) -> dict[str, Given]:
    given: dict[str, Given] = {}
    for _, claim in answer.claims():
        for q in claim.citations:
            prev = given.get(q.chunk_id, Given(q.doc_id, ()))
            given[q.chunk_id] = Given(q.doc_id, (*prev.texts, q.quote))
    for e in evidence:
        prev = given.get(e.chunk_id, Given(e.doc_id, ()))
        given[e.chunk_id] = Given(e.doc_id, (*prev.texts, e.snippet, *e.sentences))
    return given


class LlmDrafter:
    """Drafts and revises through the model; on `LlmUnavailableError` the fallback drafter writes that call."""

    name = "llm"

    def __init__(self, client: LlmClient, fallback: Drafter | None, *, max_claims: int = 40, fill_gaps: bool = False):
        self.client = client
        self.fallback = fallback
        self.max_claims = max_claims
        self.fill_gaps = fill_gaps
        """hybrid: the fallback drafter answers the items the model's draft left without a claim."""

    def draft(self, plan: ResearchPlan, hits: Mapping[str, Sequence[Hit]], ctx: EngineContext) -> DraftResult:
        """A typed answer from the passages retrieved per plan item; items the corpus cannot answer become gaps."""
        gaps = [gap_for(i, plan) for i in plan.items if not i.answerable]
        if not any(hits.values()):
            answer = Answer(gaps=tuple(gaps))
            return DraftResult(
                answer=answer,
                citations=[],
                notes=("llm drafter: no passage was retrieved for any plan item; no model call",),
            )
        try:
            out, usage, notes, fitted = self.client.fitted_call(
                "llm drafter", AnswerOut, DRAFT_SYSTEM, lambda room: draft_prompt(plan, hits, ctx, room)
            )
        except LlmUnavailableError as exc:
            return self._fall_back(exc, "draft", lambda f: f.draft(plan, hits, ctx))
        budget = (f"llm drafter: {fitted.note()}",) if fitted.cut else ()
        given = _given_hits(hits, {p.chunk_id for p, _ in fitted.shown})
        answer, dropped = AnswerBuilder(plan, given, ctx, self.max_claims).build(out, gaps)
        usage = with_counts(usage, dropped=len(dropped), left_out=fitted.cut)
        result = cited(answer, ctx, usage, (*budget, *notes, *dropped))
        left = unanswered(plan, answer, hits)
        if left and self.fill_gaps and self.fallback is not None:
            return self._filled(plan, hits, ctx, result, left)
        return result

    def _filled(
        self,
        plan: ResearchPlan,
        hits: Mapping[str, Sequence[Hit]],
        ctx: EngineContext,
        result: DraftResult,
        left: list[str],
    ) -> DraftResult:
        """The model's draft with the fallback drafter's claims on the items the model left without one (its
        verdict too, when the model's had none that stood), each marked as written by the fallback."""
        assert self.fallback is not None
        todo = set(left)
        part = plan.model_copy(update={"items": tuple(i for i in plan.items if i.id in todo)})
        filler = self.fallback.draft(part, {k: v for k, v in hits.items() if k in todo}, ctx)
        answer = result.answer
        added = 0
        for code, c in filler.answer.claims():
            if not set(c.plan_item_ids) & todo:
                continue
            marked = c.model_copy(update={"written_by": self.fallback.name})
            if c.kind == "verdict":
                if answer.verdict is None:
                    answer = answer.model_copy(update={"verdict": marked})
                    added += 1
                continue
            if code == ANY_JURISDICTION:
                continue
            section = answer.section(code)
            answer = answer.with_claims(code, (*(section.claims if section else ()), marked))
            added += 1
        note = (
            f"llm drafter: the model's draft left {len(left)} item(s) with retrieved passages unanswered "
            f"({', '.join(left)}); the {self.fallback.name} drafter wrote {added} claim(s) for them"
        )
        return cited(answer, ctx, add_usage(result.usage, filler.usage), (*result.notes, note))

    def revise(
        self,
        plan: ResearchPlan,
        answer: Answer,
        addressed: Sequence[Deficiency],
        evidence: Sequence[Evidence],
        ctx: EngineContext,
    ) -> DraftResult:
        """The answer revised with the correction evidence; unchanged (and no call) when nothing was addressed."""
        if not addressed:
            return cited(answer, ctx)
        try:
            out, usage, notes, fitted = self.client.fitted_call(
                "llm reviser",
                AnswerOut,
                REVISE_SYSTEM,
                lambda room: revise_prompt(plan, answer, addressed, evidence, ctx, room),
            )
        except LlmUnavailableError as exc:
            return self._fall_back(exc, "revision", lambda f: f.revise(plan, answer, addressed, evidence, ctx))
        budget = (f"llm reviser: {fitted.note()}",) if fitted.cut else ()
        builder = AnswerBuilder(plan, _given_revision(answer, evidence), ctx, self.max_claims)
        revised, dropped = builder.build(out, answer.gaps)
        usage = with_counts(usage, dropped=len(dropped), left_out=fitted.cut)
        kept: tuple[str, ...] = ()
        if self.fill_gaps and self.fallback is not None:
            revised, kept = kept_on_lost_items(answer, revised, addressed)
            revised, applied = self._applied(plan, answer, revised, addressed, evidence, ctx)
            kept = (*kept, *applied)
        return cited(revised, ctx, usage, (*budget, *notes, *dropped, *kept))

    def _applied(
        self,
        plan: ResearchPlan,
        before: Answer,
        revised: Answer,
        addressed: Sequence[Deficiency],
        evidence: Sequence[Evidence],
        ctx: EngineContext,
    ) -> tuple[Answer, tuple[str, ...]]:
        """The hybrid floor of a correction: a deficiency whose evidence the model's revision quotes nowhere new
        (a small model may return the answer as it was) is applied by the fallback reviser, its claims marked as
        written by it; and the note saying so."""
        assert self.fallback is not None
        old = {q.chunk_id for _, c in before.claims() for q in c.citations}
        new = {q.chunk_id for _, c in revised.claims() for q in c.citations} - old
        unused = [d for d in addressed if not any(e.deficiency_id == d.id and e.chunk_id in new for e in evidence)]
        if not unused:
            return revised, ()
        ids = {d.id for d in unused}
        applied = self.fallback.revise(plan, revised, unused, [e for e in evidence if e.deficiency_id in ids], ctx)
        said = {c.text for _, c in revised.claims()}
        added = 0
        answer = applied.answer
        for section in answer.sections:
            marked = [
                c if c.text in said else c.model_copy(update={"written_by": self.fallback.name}) for c in section.claims
            ]
            added += sum(1 for c in section.claims if c.text not in said)
            answer = answer.with_claims(section.jurisdiction, marked)
        if not added:
            return revised, ()
        return answer, (
            f"llm reviser: the model's revision quoted no evidence of {len(unused)} correction(s) "
            f"({', '.join(sorted(ids))}); the {self.fallback.name} reviser applied them ({added} claim(s))",
        )

    def _fall_back(self, exc: LlmUnavailableError, what: str, run: Callable[[Drafter], DraftResult]) -> DraftResult:
        if self.fallback is None:
            raise exc
        try:
            result = run(self.fallback)
        except Exception as fallback_exc:
            raise exc from fallback_exc
        role = "llm reviser" if what == "revision" else "llm drafter"
        note = f"{role} unavailable ({exc.reason}); the {self.fallback.name} drafter wrote this {what}"
        return replace(result, usage=add_usage(result.usage, exc.usage), notes=(*exc.notes, *result.notes, note))
