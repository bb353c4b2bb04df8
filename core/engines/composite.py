"""Composite critic: the LLM critic over a rule floor, merged by stable deficiency ID with the origin kept.

The rule floor always runs, whatever the model says: in `llm` mode the rule critic's coverage and claim
verifiers (every plan item needs a supported claim; every figure, date and comparator of a claim must be in the
passage it quotes), in `hybrid` mode every rule verifier. So a fabricated figure or a half-answered question can
never finish at 1.00 with nothing disclosed. When the model is unavailable the whole rule critic covers that
cycle and the cycle record says so. The score always counts the plan items the rule critic found answered.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.domain.answer import Answer
from core.domain.corrections import widened_if_tried
from core.domain.plan import ResearchPlan
from core.domain.quality import quality_score
from core.domain.records import Deficiency
from core.engines.base import Critic, CritiqueResult, EngineContext
from core.engines.llm import LlmCritic, LlmUnavailableError
from core.engines.offline.coverage import answered_items, coverage_deficiencies
from core.engines.offline.verifiers import check_claims


def merge(llm: Sequence[Deficiency], rules: Sequence[Deficiency]) -> list[Deficiency]:
    """One deficiency per ID. The rule version wins on content (it carries exact filters and affected text);
    `origin` says who found it: "rules", "llm" or "llm+rules"."""
    out = {d.id: d.model_copy(update={"origin": "rules"}) for d in rules}
    for d in llm:
        out[d.id] = (
            out[d.id].model_copy(update={"origin": "llm+rules"})
            if d.id in out
            else d.model_copy(update={"origin": "llm"})
        )
    return list(out.values())


class RuleFloor:
    """The rule critic's coverage and claim verifiers alone: what the `llm` engine never runs without."""

    name = "rule floor"

    def critique(
        self, plan: ResearchPlan, answer: Answer, known: Sequence[Deficiency], ctx: EngineContext
    ) -> CritiqueResult:
        """Unanswered plan items and claims their quoted passages do not support, scored like the rule critic."""
        answered = answered_items(plan, answer, ctx)
        found: dict[str, Deficiency] = {}
        for d in (
            *coverage_deficiencies(plan, answered, ctx, answer.said()),
            *check_claims(plan, answer.claims(), ctx),
        ):
            found.setdefault(d.id, d)
        tried = {d.id: d for d in known}
        result = [widened_if_tried(d, tried.get(d.id)) for d in found.values()]
        return CritiqueResult(
            deficiencies=result,
            critics=(self.name,),
            answered_items=tuple(answered),
            score=quality_score(result, *plan.asked_share(answered)),
        )


class CompositeCritic:
    """The LLM critic merged with `floor` every cycle; `fallback` (the full rule critic) when the model fails.

    hybrid: floor = fallback = the rule critic. llm: floor = `RuleFloor`, fallback = the rule critic.
    """

    def __init__(self, llm: LlmCritic, floor: Critic, fallback: Critic, *, name: str):
        self.llm = llm
        self.floor = floor
        self.fallback = fallback
        self.name = name

    def critique(
        self, plan: ResearchPlan, answer: Answer, known: Sequence[Deficiency], ctx: EngineContext
    ) -> CritiqueResult:
        """Model findings and the floor merged by ID, scored on the floor's answered items; the fallback's findings
        alone, with a note, when the model is unavailable."""
        try:
            found = self.llm.critique(plan, answer, known, ctx)
        except LlmUnavailableError as exc:
            covered = self.fallback.critique(plan, answer, known, ctx)
            note = f"llm critic unavailable ({exc.reason}); the {self.fallback.name} critic covered this cycle"
            return CritiqueResult(
                deficiencies=merge([], covered.deficiencies),
                score=covered.score,
                critics=covered.critics,
                usage=exc.usage,
                notes=(*exc.notes, *covered.notes, note),
                answered_items=covered.answered_items,
            )
        rules = self.floor.critique(plan, answer, known, ctx)
        merged = merge(found.deficiencies, rules.deficiencies)
        score = quality_score(merged, *plan.asked_share(rules.answered_items))
        return CritiqueResult(
            deficiencies=merged,
            score=score,
            critics=(*found.critics, *rules.critics),
            usage=found.usage,
            notes=(*found.notes, *rules.notes),
            answered_items=rules.answered_items,
        )
