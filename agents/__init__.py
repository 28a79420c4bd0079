"""The LangGraph state machine: state, nodes, graph, runner (``autoalign.agents``)."""
