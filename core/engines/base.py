"""The engine Protocols (Planner, Drafter, Critic) and the value types they exchange with the graph."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

from core.domain.answer import Answer
from core.domain.documents import Catalog, Chunk, Hit
from core.domain.plan import ResearchPlan
from core.domain.quality import held_short
from core.domain.records import Citation, Deficiency, Evidence, ModelCall


@dataclass(frozen=True)
class EngineContext:
    """What engines may consult besides the state: corpus metadata, document and passage text, the as-of date."""

    catalog: Catalog
    as_of: date
    doc_text: Callable[[str], str]
    passage: Callable[[str], str] = lambda chunk_id: ""
    """The text of one passage by chunk id ("" when the corpus does not hold it)."""
    chunk: Callable[[str], Chunk | None] = lambda chunk_id: None
    """One passage with its metadata (a .jsonl passage's own `passage_id`), or None."""


@dataclass(frozen=True)
class Usage:
    """Model usage of one engine call (all zero for the offline engine)."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: tuple[ModelCall, ...] = ()
    """Each model call made (or refused at once by the breaker), in order."""


@dataclass(frozen=True)
class PlanResult:
    """The research plan of a question."""

    plan: ResearchPlan
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DraftResult:
    """A typed answer and the citation records of the documents it cites."""

    answer: Answer
    citations: list[Citation]
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CritiqueResult:
    """Deficiencies found in the current answer, the plan items it supports, the score, and which critics ran."""

    deficiencies: list[Deficiency]
    score: float
    critics: tuple[str, ...]
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()
    degraded: str | None = None
    answered_items: tuple[str, ...] = ()

    def held_score(self, plan: ResearchPlan, threshold: float) -> float:
        """The score as reported against the stopping threshold (`held_short`): never at it while an asked item of
        the plan is unanswered."""
        return held_short(self.score, plan.asked_share(self.answered_items), threshold)


class Planner(Protocol):
    """Turns a question into a research plan before anything is retrieved."""

    name: str

    def plan(self, question: str, ctx: EngineContext) -> PlanResult: ...


class Drafter(Protocol):
    """Writes the first answer from the passages retrieved per plan item and revises it with correction evidence."""

    name: str

    def draft(self, plan: ResearchPlan, hits: Mapping[str, Sequence[Hit]], ctx: EngineContext) -> DraftResult: ...

    def revise(
        self,
        plan: ResearchPlan,
        answer: Answer,
        addressed: Sequence[Deficiency],
        evidence: Sequence[Evidence],
        ctx: EngineContext,
    ) -> DraftResult: ...


class Critic(Protocol):
    """Finds typed deficiencies in an answer against the plan; `known` are the deficiencies tried so far."""

    name: str

    def critique(
        self, plan: ResearchPlan, answer: Answer, known: Sequence[Deficiency], ctx: EngineContext
    ) -> CritiqueResult: ...
