"""Why a loop stopped: each stop reason a named constant, with its sentence and its few-word label. The
termination policy (core.loop.termination) returns these codes; sessions, pages, the CLI and the exports word
them from here."""

from __future__ import annotations

QUALITY_THRESHOLD_MET = "quality_threshold_met"
NO_OPEN_DEFICIENCIES = "no_open_deficiencies"
SCORE_PLATEAU = "score_plateau"
MAX_CYCLES_REACHED = "max_cycles_reached"
ONLY_UNRESOLVABLE_REMAINING = "only_unresolvable_remaining"
STOPPED_BY_ANALYST = "stopped_by_analyst"
LLM_BUDGET_EXHAUSTED = "llm_budget_exhausted"
STEP_LIMIT = "step_limit"
DEGRADED_PREFIX = "degraded_"

REASON_TEXT: dict[str, str] = {
    QUALITY_THRESHOLD_MET: "The quality score reached the threshold and no open deficiency is at or above the blocking severity.",
    NO_OPEN_DEFICIENCIES: "No deficiency is left open.",
    SCORE_PLATEAU: "The score stopped improving for several cycles, so further corrections were not worth running.",
    MAX_CYCLES_REACHED: "The maximum number of correction cycles was reached.",
    ONLY_UNRESOLVABLE_REMAINING: "Only dismissed or unresolvable deficiencies remain: the analyst dismissed them, or "
    "the loop could not fix them.",
    STOPPED_BY_ANALYST: "The analyst stopped the loop.",
    LLM_BUDGET_EXHAUSTED: "The session's LLM budget (calls or tokens) was used up, so no further cycle was run.",
    STEP_LIMIT: "The run used every graph step its cycle budget allows without reaching a stop condition, so it was "
    "stopped and the answer is given as it stood.",
}
NOTHING_FOUND_TEXT = "No problem was found: the critics raised no deficiency."
ALL_RESOLVED_TEXT = "No deficiency is left open: every problem the critics found was resolved."
REASON_LABEL: dict[str, str] = {
    QUALITY_THRESHOLD_MET: "quality threshold met",
    NO_OPEN_DEFICIENCIES: "no open deficiencies",
    SCORE_PLATEAU: "score plateau",
    MAX_CYCLES_REACHED: "maximum cycles reached",
    ONLY_UNRESOLVABLE_REMAINING: "only dismissed or unresolvable deficiencies remain",
    STOPPED_BY_ANALYST: "stopped by the analyst",
    LLM_BUDGET_EXHAUSTED: "LLM budget used up",
    STEP_LIMIT: "step limit reached",
}
"""The same reasons in a few words, for badges, status lines and progress lines (one vocabulary with REASON_TEXT)."""
REASON_CODES: frozenset[str] = frozenset(REASON_LABEL)


def describe(reason: str | None, found: int | None = None) -> str:
    """A sentence for a reason, for the UI and exports; `found` (deficiencies the critics raised in the session,
    when known) tells "nothing was found" from "everything found was resolved" (without it, neither is claimed)."""
    if reason is None:
        return "The loop has not finished."
    if reason.startswith(DEGRADED_PREFIX):
        component = reason[len(DEGRADED_PREFIX) :]
        return f"A component failed ({component}); the loop stopped and the answer is given as it stood."
    if reason == NO_OPEN_DEFICIENCIES and found is not None:
        return ALL_RESOLVED_TEXT if found else NOTHING_FOUND_TEXT
    return REASON_TEXT.get(reason, reason)


def reason_label(reason: str | None) -> str:
    """A reason in a few words (the code with spaces for a reason this module does not name)."""
    if reason is None:
        return "not finished"
    if reason.startswith(DEGRADED_PREFIX):
        return f"a component failed ({reason[len(DEGRADED_PREFIX) :]})"
    return REASON_LABEL.get(reason, reason.replace("_", " "))
