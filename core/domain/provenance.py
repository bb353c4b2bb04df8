"""Who wrote what: the model or the offline engine, per part (planner, drafter, reviser, critic) and cycle.

Derived from the `ModelCall`s each cycle record keeps: a part the model answered was written by the model (in
the structured-output mode named); a part whose call failed fell back to the offline engine, for the reason
recorded. A run of a model engine in which the model wrote nothing is labelled as the offline engine's.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from core.domain.answer import Answer
from core.domain.records import EvaluationCycleRecord, ModelCall

PARTS = ("planner", "drafter", "reviser", "critic")


class PartProvenance(BaseModel):
    """How one part of one cycle was written."""

    model_config = ConfigDict(frozen=True)

    cycle: int
    part: str
    by: str
    """"model" or "offline"."""
    mode: str = ""
    reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    dropped: int = 0

    def line(self) -> str:
        """One line for notes and exports."""
        if self.by == "model":
            cut = f", {self.dropped} dropped by validation" if self.dropped else ""
            return (
                f"cycle {self.cycle} {self.part}: model ({self.mode}; {self.prompt_tokens} prompt + "
                f"{self.completion_tokens} completion tokens{cut})"
            )
        return f"cycle {self.cycle} {self.part}: offline engine (the model call failed: {self.reason})"


def part_provenance(cycle: int, call: ModelCall) -> PartProvenance:
    """The provenance of the part one call served."""
    return PartProvenance(
        cycle=cycle,
        part=call.role,
        by="model" if call.outcome == "answered" else "offline",
        mode=call.mode,
        reason=call.reason,
        prompt_tokens=call.prompt_tokens,
        completion_tokens=call.completion_tokens,
        dropped=call.dropped,
    )


def provenance(history: Sequence[EvaluationCycleRecord]) -> list[PartProvenance]:
    """Every part that called the model, cycle by cycle, in call order."""
    return [part_provenance(r.cycle_number, c) for r in history for c in r.model_calls]


def calls_note(calls: Sequence[ModelCall]) -> str:
    """The cycle note naming, per model call, the part, the mode it was answered in (or why it failed) and its
    tokens ('' when the cycle made no model call)."""
    if not calls:
        return ""
    parts = []
    for c in calls:
        if c.outcome == "answered":
            parts.append(
                f"{c.role} in {c.mode} mode ({c.prompt_tokens} prompt + {c.completion_tokens} completion tokens)"
            )
        else:
            parts.append(f"{c.role} failed ({c.reason}), offline fallback")
    return "model calls: " + "; ".join(parts)


def model_wrote_nothing(engine: str, history: Sequence[EvaluationCycleRecord]) -> bool:
    """Whether a run of a model engine has no part the model answered (the answer is the offline engine's)."""
    if engine == "offline" or unrecorded(history):
        return False
    return not any(p.by == "model" for p in provenance(history))


def unrecorded(history: Sequence[EvaluationCycleRecord]) -> bool:
    """Whether the records spent model calls but predate per-call records (nothing to tell the parts by)."""
    return any(r.llm_calls for r in history) and not any(r.model_calls for r in history)


def written_by(engine: str, history: Sequence[EvaluationCycleRecord], answer: Answer | None = None) -> str:
    """The "Written by" line of a run: the offline engine, the model, or both (with what fell back, and how many
    of the answer's claims the offline drafter wrote on items the model's draft left unanswered)."""
    if engine == "offline":
        return "Written by the offline engine."
    if unrecorded(history):
        return "Not recorded: this session's cycle records predate the records of each model call."
    parts = provenance(history)
    model = [p for p in parts if p.by == "model"]
    if not model:
        why = sorted({p.reason for p in parts if p.reason})
        because = f" (every model call failed: {', '.join(why)})" if why else " (no model call was made)"
        return f"Written by the offline engine: the {engine} engine's model wrote nothing{because}."
    offline = [p for p in parts if p.by == "offline"]
    claims = [c for _, c in answer.claims()] if answer is not None else []
    filled = sum(1 for c in claims if c.written_by)
    if not offline and not filled:
        modes = ", ".join(sorted({p.mode for p in model}))
        return f"Written by the model ({modes}), checked by the {engine} engine's rules."
    said = []
    if offline:
        said.append(
            "the offline engine wrote the " + "; ".join(f"{p.part} in cycle {p.cycle} ({p.reason})" for p in offline)
        )
    if filled:
        said.append(
            f"the offline drafter wrote {filled} of the answer's {len(claims)} claims (on items the model's draft "
            "left unanswered)"
        )
    return "Written by the model and the offline engine: " + "; ".join(said) + "."
