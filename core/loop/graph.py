"""StateGraph wiring only: nodes, edges, the review interrupt, the input and context schemas, compilation with a
checkpointer, and the step budget that follows from the graph's shape."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from core.loop.correct import correct
from core.loop.critique import critique
from core.loop.deps import Deps
from core.loop.drafting import draft, plan, retrieve, revise
from core.loop.finalize import finalize
from core.loop.review import review
from core.loop.state import SessionInput, WorkbenchState

STEP_MARGIN = 4
"""Spare steps: the budget is a backstop against a loop that never stops, not a second cycle limit."""


def step_budget(graph: Any, max_cycles: int) -> int:
    """The recursion limit of one run of a session allowed `max_cycles` correction cycles, from the compiled
    graph's shape: the longest way to the first critique, the longest way round the loop back to a critique once
    per correction cycle, and the longest way from a critique to the end, plus a margin (each node on a way is one
    step; parallel corrections are one step). A run never needs more, since the termination policy stops at
    `max_cycles`; reaching it means the loop failed to stop, and the run then ends with `step_limit`."""
    follows: dict[str, set[str]] = {}
    for edge in graph.get_graph().edges:
        follows.setdefault(edge.source, set()).add(edge.target)
    first = _longest(follows, START, "critique")
    loop = max(_longest(follows, after, "critique") + 1 for after in follows["critique"] if after != END)
    closing = _longest(follows, "critique", END) - 1
    return first + loop * max_cycles + closing + STEP_MARGIN


def _longest(follows: dict[str, set[str]], start: str, goal: str) -> int:
    """Nodes on the longest path from `start` (not counted) to `goal` (counted) that passes no node twice and
    reaches `goal` only at its end; 0 when there is none."""

    def walk(node: str, seen: frozenset[str]) -> int:
        best = 0
        for nxt in follows.get(node, ()):
            if nxt == goal:
                best = max(best, 1)
            elif nxt not in seen:
                rest = walk(nxt, seen | {nxt})
                best = max(best, rest + 1 if rest else 0)
        return best

    return walk(start, frozenset({start}))


def _after_critique(state: WorkbenchState) -> str:
    return "finalize" if state.get("evaluation_termination_reason") else "review"


def _after_plan(state: WorkbenchState) -> str:
    return "critique" if state.get("degraded") else "retrieve"


def _after_retrieve(state: WorkbenchState) -> str:
    return "critique" if state.get("degraded") else "draft"


def build_graph(checkpointer: Any = None) -> Any:
    """START -> plan -> retrieve -> draft -> critique -(policy)-> review -> correct* -> revise -> critique ... -> finalize.

    The graph takes a SessionInput and runs with a `Deps` context (`context=` of stream/invoke), so one compiled
    graph serves every collection and reading a session's state needs no store."""
    g = StateGraph(WorkbenchState, context_schema=Deps, input_schema=SessionInput)
    g.add_node("plan", plan)
    g.add_node("retrieve", retrieve)
    g.add_node("draft", draft)
    g.add_node("critique", critique)
    g.add_node("review", review, destinations=("correct", "finalize"))
    g.add_node("correct", correct)  # type: ignore[call-overload]  # fed by Send with a task payload, not the state
    g.add_node("revise", revise)
    g.add_node("finalize", finalize)
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", _after_plan, ["retrieve", "critique"])
    g.add_conditional_edges("retrieve", _after_retrieve, ["draft", "critique"])
    g.add_edge("draft", "critique")
    g.add_conditional_edges("critique", _after_critique, ["review", "finalize"])
    g.add_edge("correct", "revise")
    g.add_edge("revise", "critique")
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer)
