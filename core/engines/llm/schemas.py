"""Structured-output schemas of the model calls: strict JSON the model must return, validated with pydantic.

Every field is required and no extra keys are allowed (OpenAI strict mode). These are the model's raw answers;
Python validates them against the corpus and the plan before they become a `ResearchPlan`, an `Answer` or
`Deficiency` records (see planner.py, drafter.py, critic.py).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from core.domain.plan import Aspect
from core.domain.records import DeficiencyType, Severity


class _Schema(BaseModel):
    """Strict-mode compatible: every field required, no extra keys."""

    model_config = ConfigDict(extra="forbid")


# ------------------------------------------------------------------------------------------------- plan


class PlanJurisdiction(_Schema):
    """A jurisdiction the question asks about and the words it used for it."""

    code: str = Field(
        description="A jurisdiction code listed as held by the corpus, or an ISO 3166 alpha-2 "
        "country code when the corpus holds nothing for that country."
    )
    named_as: list[str] = Field(description="The words of the question that name it, copied exactly.")


class PlanItemOut(_Schema):
    """One thing the answer must say about one jurisdiction."""

    jurisdiction: str = Field(description="A code from `jurisdictions`, or * when the question names none.")
    aspect: Aspect
    ask: str = Field(description="What the answer must state for this item, as a short request.")
    query: str = Field(description="A search query that would retrieve the passage answering this item.")


class PlanOut(_Schema):
    """The question broken into what it asks."""

    jurisdictions: list[PlanJurisdiction]
    entity_types: list[str] = Field(description="Kinds of firm or person the question is about, e.g. bank.")
    yes_no: bool = Field(description="True when the question asks for a yes or no answer.")
    comparison: bool = Field(description="True when the question asks to compare jurisdictions.")
    items: list[PlanItemOut]


# ----------------------------------------------------------------------------------------------- answer


class CitationOut(_Schema):
    """A passage supporting a claim, with the sentence of it that does."""

    chunk_id: str = Field(description="The chunk_id of a provided document, exactly as in its tag.")
    quote: str = Field(description="The supporting sentence, copied word for word from that document.")


class ClaimOut(_Schema):
    """One statement of the answer."""

    text: str = Field(description="One or two plain sentences, without citation markers.")
    plan_item_ids: list[str] = Field(description="Ids of the plan items this claim answers.")
    citations: list[CitationOut]


class SectionOut(_Schema):
    """The claims about one jurisdiction."""

    jurisdiction: str = Field(description="The jurisdiction code exactly as given.")
    claims: list[ClaimOut]


class AnswerOut(_Schema):
    """A cited answer: the verdict of a yes/no question (else null) and one section per jurisdiction."""

    CUT_PATH: ClassVar[tuple[str, ...]] = ("sections", "claims")
    """Where a reply cut at its length limit was writing: its last section's last claim (`salvage`)."""

    verdict: ClaimOut | None = Field(
        description="For a yes/no question: the direct answer, opening with Yes or No; null otherwise."
    )
    sections: list[SectionOut]


# --------------------------------------------------------------------------------------------- critique


class FindingOut(_Schema):
    """One problem in the answer, named by a stable subject so that it keeps its identity across cycles."""

    deficiency_type: DeficiencyType
    subject: str = Field(description="Stable subject; its form depends on the type (see instructions).")
    description: str
    severity: Severity
    suggested_correction_query: str = Field(description="A search query that would retrieve the fix.")
    affected_section: str = Field(description="Jurisdiction code of the answer section concerned.")


class FindingsOut(_Schema):
    """Deficiencies found in the answer (an empty list when there are none)."""

    CUT_PATH: ClassVar[tuple[str, ...]] = ("deficiencies",)
    """Where a reply cut at its length limit was writing: its last finding (`salvage`)."""

    deficiencies: list[FindingOut]
