"""The graph factory. Dependencies reach nodes through the runtime context, never globals.

understand -> route -> (clarify -> understand) | plan | generate(direct)
plan -> retrieve -> evaluate -> (retrieve | generate) -> verify -> (generate | finalize)
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.context import RunContext
from agent.nodes.clarify import clarify
from agent.nodes.evaluate import after_evaluate, evaluate
from agent.nodes.finalize import finalize
from agent.nodes.generate import generate
from agent.nodes.plan import plan
from agent.nodes.retrieve import retrieve
from agent.nodes.route import after_route, route
from agent.nodes.understand import understand
from agent.nodes.verify import after_verify, verify
from agent.state import GraphState


def _after_generate(state: GraphState) -> str:
    return "finalize" if state["decision"]["route"] == "direct_answer" else "verify"


def build_graph(*, checkpointer: Any | None = None) -> Any:
    """Compile the answer graph; ``checkpointer`` keeps each thread's memory."""
    g = StateGraph(GraphState, context_schema=RunContext)
    g.add_node("understand", understand)
    g.add_node("route", route)
    g.add_node("clarify", clarify)
    g.add_node("plan", plan)
    g.add_node("retrieve", retrieve)
    g.add_node("evaluate", evaluate)
    g.add_node("generate", generate)
    g.add_node("verify", verify)
    g.add_node("finalize", finalize)
    g.add_edge(START, "understand")
    g.add_edge("understand", "route")
    g.add_conditional_edges("route", after_route, ["clarify", "plan", "generate"])
    g.add_edge("clarify", "understand")
    g.add_edge("plan", "retrieve")
    g.add_edge("retrieve", "evaluate")
    g.add_conditional_edges("evaluate", after_evaluate, ["retrieve", "generate"])
    g.add_conditional_edges("generate", _after_generate, ["verify", "finalize"])
    g.add_conditional_edges("verify", after_verify, ["generate", "finalize"])
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer)
