"""route: direct_answer | single_retrieval | multi_retrieval | clarify."""

from __future__ import annotations

import time
from typing import Any, Literal

import structlog
from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.state import GraphState, RouteDecision, RouteInput

log = structlog.get_logger("agent")


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
    if decision["route"] == "clarify" and decision["clarification"] is not None:
        found = _titles_found(runtime.context, u["query"])
        if len(found) >= 2:  # what the KB holds for these words beats a list of doc types
            decision["clarification"]["options"] = found
    runtime.context.trace.record("route", started, {"query": u["query"]}, dict(decision))
    return {"decision": decision}


def _titles_found(ctx: RunContext, query: str, limit: int = 3) -> list[str]:
    """The titles of the documents a search for ``query`` finds first, as clarify options
    (the asker may read each); [] when the search fails."""
    from store.search import search

    try:
        hits = search(ctx.pool, ctx.kb, query, embedder=ctx.embedder, k=10,
                      principals=ctx.principals)
    except Exception:
        log.exception("clarify_options_search_failed", kb=ctx.kb)
        return []
    return list(dict.fromkeys(h.title for h in hits if h.title))[:limit]


def after_route(state: GraphState) -> Literal["clarify", "plan", "generate"]:
    name = state["decision"]["route"]
    if name == "clarify":
        return "clarify"
    if name == "direct_answer":
        return "generate"
    return "plan"
