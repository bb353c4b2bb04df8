"""The loop's node functions, one module per job: answer (plan, retrieve, draft, revise), critique, review,
correct and finalize. Each takes the state and LangGraph's runtime (whose context is core.nodes.Deps) and returns
an update."""
