"""The last node: the answer with its gaps and residual deficiencies disclosed, and why the loop stopped."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.domain.answer import Answer
from core.domain.deficiencies import residual
from core.domain.provenance import model_wrote_nothing, written_by
from core.domain.stop_reasons import MAX_CYCLES_REACHED
from core.loop.deps import Deps, final_text, rendered, retrieved_by_item, with_gaps
from core.loop.state import WorkbenchState
from core.loop.termination import decide


def finalize(state: WorkbenchState, runtime: Runtime[Deps]) -> dict[str, Any]:
    """The final answer: plan items left unanswered become gaps, what is not resolved is listed, and the reason
    is the one the loop stopped for (the policy's reading of the last cycle when the run was ended otherwise)."""
    deficiencies = state.get("identified_deficiencies", [])
    left = residual(deficiencies)
    reason = (
        state.get("evaluation_termination_reason")
        or decide(
            deficiencies=deficiencies,
            score=state.get("last_evaluation_score") or 0.0,
            cycle=state.get("evaluation_cycle", 0),
            max_cycles=state.get("max_evaluation_cycles", 0),
            plateau_streak=state.get("plateau_streak", 0),
            policy=runtime.context.policy,
            degraded=state.get("degraded"),
        )
        or MAX_CYCLES_REACHED
    )
    engine, history = state.get("engine", "offline"), state.get("evaluation_history", [])
    # a model's draft may leave out items its passages answer: those are the draft's gaps, not the corpus'
    found = retrieved_by_item(state.get("retrieved_snippets", [])) if engine != "offline" else {}
    answer = with_gaps(state.get("answer") or Answer(), state.get("plan"), left, found)
    current = (
        rendered(answer, state.get("plan"), state.get("citations", []))
        if state.get("plan")
        else state.get("current_answer", "")
    )
    label = f"> {written_by(engine, history)}\n\n" if model_wrote_nothing(engine, history) else ""
    return {
        "answer": answer,
        "current_answer": current,
        "final_answer": label + final_text(current, left),
        "quality_score": state.get("last_evaluation_score") or 0.0,
        "residual_deficiencies": left,
        "evaluation_termination_reason": reason,
    }
