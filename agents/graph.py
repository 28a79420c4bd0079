"""The LangGraph wiring of the self-correction loop (no logic here: see ``nodes`` and ``policy``).

::

    START -> generate -> score -> detect --route-->  aligned         -> END
                                    ^              max_rounds      -> END
                                    |              no_improvement  -> END
                                    |              next_round      -> instruct -> edit --+
                                    +--------------------------------------------------+

A round is detect -> instruct -> edit; ``route`` decides after every detect (so a run that is
aligned at once, or has ``max_rounds = 0``, never edits). Each branch that ends the run is named
for its stop reason (:data:`autoalign.types.STOP_REASONS`). Callers compile with their checkpointer::

    graph = build_graph().compile(checkpointer=SqliteSaver(conn))
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from autoalign.agents import nodes
from autoalign.agents.state import LoopContext, LoopState
from autoalign.types import NODE_NAMES, STOP_REASONS

NODES = NODE_NAMES  # the names the runner streams (autoalign.types.NodeName)


def build_graph() -> StateGraph:
    """The uncompiled loop graph (state :class:`LoopState`, context :class:`LoopContext`)."""
    graph = StateGraph(LoopState, context_schema=LoopContext)
    for name in NODES:
        graph.add_node(name, getattr(nodes, name))
    graph.add_edge(START, "generate")
    graph.add_edge("generate", "score")
    graph.add_edge("score", "detect")
    graph.add_conditional_edges(
        "detect",
        nodes.route,
        {**{reason: END for reason in STOP_REASONS}, nodes.NEXT_ROUND: "instruct"},
    )
    graph.add_edge("instruct", "edit")
    graph.add_edge("edit", "detect")
    return graph


def recursion_limit(max_rounds: int) -> int:
    """A backstop on graph steps: 3 to start, 3 per edit round, plus slack."""
    return 3 + 3 * max(0, int(max_rounds)) + 5
