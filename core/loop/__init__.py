"""The evaluation loop: the graph's wiring (graph), its state and reducers (state), what the nodes share (deps),
the termination policy, and one module per node: drafting (plan, retrieve, draft, revise), critique, review,
correct and finalize. Each node takes the state and LangGraph's runtime (whose context is core.loop.deps.Deps)
and returns an update."""
