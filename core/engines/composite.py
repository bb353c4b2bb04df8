"""Composite critic: the LLM critic and the rule critic, merged by stable deficiency ID with the origin kept.

The rule critic is also the LLM critic's safety net: when the model is unavailable after its retries, the rules
cover that cycle and the cycle record says so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from core.engines.base import Critic, CritiqueResult, EngineContext
from core.engines.llm import LlmCritic, LlmUnavailableError
from core.state import Deficiency
from core.quality import quality_score


def merge(llm: Sequence[Deficiency], rules: Sequence[Deficiency]) -> list[Deficiency]:
    """One deficiency per ID. The rule version wins on content (it carries exact filters and affected text);
    `origin` says who found it: "rules", "llm" or "llm+rules"."""
    out = {d.id: d.model_copy(update={"origin": "rules"}) for d in rules}
    for d in llm:
        out[d.id] = out[d.id].model_copy(update={"origin": "llm+rules"}) if d.id in out else d.model_copy(
            update={"origin": "llm"})
    return list(out.values())


class CompositeCritic:
    """`always_rules=True` (hybrid): both critics every cycle. False (llm): the rules only when the model fails."""

    def __init__(self, llm: LlmCritic, rules: Critic, *, always_rules: bool):
        self.llm = llm
        self.rules = rules
        self.always_rules = always_rules
        self.name = f"{llm.name}+{rules.name}" if always_rules else llm.name

    def critique(self, question: str, answer: str, known: Sequence[Deficiency], ctx: EngineContext) -> CritiqueResult:
        """Both critics' findings merged by ID, or the rule critic's alone with a note when the model is unavailable."""
        try:
            found = self.llm.critique(question, answer, known, ctx)
        except LlmUnavailableError as exc:
            covered = self.rules.critique(question, answer, known, ctx)
            note = f"llm critic unavailable ({exc.reason}); the {self.rules.name} critic covered this cycle"
            deficiencies = merge([], covered.deficiencies)
            return replace(covered, deficiencies=deficiencies, usage=exc.usage,
                           notes=(*exc.notes, *covered.notes, note))
        if not self.always_rules:
            return found
        rules = self.rules.critique(question, answer, known, ctx)
        merged = merge(found.deficiencies, rules.deficiencies)
        return CritiqueResult(deficiencies=merged, score=quality_score(merged),
                              critics=(*found.critics, *rules.critics), usage=found.usage,
                              notes=(*found.notes, *rules.notes))
