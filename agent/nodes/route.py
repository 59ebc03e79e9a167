"""route: direct_answer | single_retrieval | multi_retrieval | clarify."""

from __future__ import annotations

import time
from typing import Any, Literal

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.state import GraphState, RouteDecision, RouteInput


def route(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    u = state["understanding"]
    facets = runtime.context.facets()
    decision = runtime.context.engine.route(
        RouteInput(question=state["question"], understanding=u, facets=facets))
    if decision["route"] == "clarify" and state.get("clarify_reply"):
        # Asked once already this turn: search with what the user told us.
        decision = RouteDecision(route="single_retrieval", reason="clarified by the user",
                                 clarification=None)
    if decision["route"] == "clarify" and not facets["titles"]:
        decision = RouteDecision(route="single_retrieval",
                                 reason="nothing in the KB to offer as options",
                                 clarification=None)
    runtime.context.trace.record("route", started, {"query": u["query"]}, dict(decision))
    return {"decision": decision}


def after_route(state: GraphState) -> Literal["clarify", "plan", "generate"]:
    name = state["decision"]["route"]
    if name == "clarify":
        return "clarify"
    if name == "direct_answer":
        return "generate"
    return "plan"
