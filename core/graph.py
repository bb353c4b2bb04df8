"""StateGraph wiring only: nodes, edges, the review interrupt and compilation with a checkpointer."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from core.nodes import Deps, make_nodes
from core.state import WorkbenchState


def _after_critique(state: WorkbenchState) -> str:
    return "finalize" if state.get("evaluation_termination_reason") else "review"


def _after_plan(state: WorkbenchState) -> str:
    return "critique" if state.get("degraded") else "retrieve"


def _after_retrieve(state: WorkbenchState) -> str:
    return "critique" if state.get("degraded") else "draft"


def build_graph(deps: Deps, checkpointer: Any = None, store: Any = None) -> Any:
    """START -> plan -> retrieve -> draft -> critique -(policy)-> review -> correct* -> revise -> critique ... -> finalize."""
    nodes = make_nodes(deps)
    g = StateGraph(WorkbenchState)
    g.add_node("plan", nodes["plan"])
    g.add_node("retrieve", nodes["retrieve"])
    g.add_node("draft", nodes["draft"])
    g.add_node("critique", nodes["critique"])
    g.add_node("review", nodes["review"], destinations=("correct", "finalize"))
    g.add_node("correct", nodes["correct"])
    g.add_node("revise", nodes["revise"])
    g.add_node("finalize", nodes["finalize"])
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", _after_plan, ["retrieve", "critique"])
    g.add_conditional_edges("retrieve", _after_retrieve, ["draft", "critique"])
    g.add_edge("draft", "critique")
    g.add_conditional_edges("critique", _after_critique, ["review", "finalize"])
    g.add_edge("correct", "revise")
    g.add_edge("revise", "critique")
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer, store=store)
