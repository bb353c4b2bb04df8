"""The two small engine Protocols (Drafter, Critic) and the value types they exchange with the graph."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Callable, Protocol, Sequence

from core.retrieval.models import Catalog, Hit
from core.state import Citation, Deficiency, Evidence


@dataclass(frozen=True)
class EngineContext:
    """What engines may consult besides the state: corpus metadata and full document text, at the as-of date."""

    catalog: Catalog
    as_of: date
    doc_text: Callable[[str], str]


@dataclass(frozen=True)
class Usage:
    """Model usage of one engine call (all zero for the offline engine)."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class DraftResult:
    """An answer in the workbench format (`## JURISDICTION` sections, `[doc-id]` citations) and its sources."""

    answer: str
    citations: list[Citation]
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CritiqueResult:
    """Deficiencies found in the current answer, the score they imply, and which critics ran."""

    deficiencies: list[Deficiency]
    score: float
    critics: tuple[str, ...]
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()
    degraded: str | None = None


class Drafter(Protocol):
    """Writes the first answer from retrieved passages and revises it with correction evidence."""

    name: str

    def draft(self, question: str, hits: Sequence[Hit], ctx: EngineContext) -> DraftResult: ...

    def revise(
        self,
        question: str,
        answer: str,
        addressed: Sequence[Deficiency],
        evidence: Sequence[Evidence],
        ctx: EngineContext,
    ) -> DraftResult: ...


class Critic(Protocol):
    """Finds typed deficiencies in an answer; `known` are the deficiencies and corrections tried so far."""

    name: str

    def critique(
        self, question: str, answer: str, known: Sequence[Deficiency], ctx: EngineContext
    ) -> CritiqueResult: ...
