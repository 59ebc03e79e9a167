"""route: direct_answer | single_retrieval | multi_retrieval | clarify."""

from __future__ import annotations

import time
from typing import Any, Literal

import structlog
from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.offline.text import content_terms, term_hits
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
    request = decision["clarification"]
    if decision["route"] == "clarify" and request is not None:
        # Titles that name the words lead; then documents a search finds that hold them.
        # Either beats a list of doc types.
        named = [o for o in request["options"] if o in facets["titles"]]
        options = list(dict.fromkeys([*named, *_titles_found(runtime.context, u["query"])]))
        if len(options) >= 2:
            request["options"] = options[:3]
    runtime.context.trace.record("route", started, {"query": u["query"]}, dict(decision))
    return {"decision": decision}


def _titles_found(ctx: RunContext, query: str, limit: int = 3) -> list[str]:
    """The titles of the documents a search for ``query`` finds first that hold its words,
    as clarify options (the asker may read each); [] when the search fails."""
    from store.search import search

    try:
        hits = search(ctx.pool, ctx.kb, query, embedder=ctx.embedder, k=10,
                      principals=ctx.principals)
    except Exception:
        log.exception("clarify_options_search_failed", kb=ctx.kb)
        return []
    terms = content_terms(query)
    return list(dict.fromkeys(h.title for h in hits
                              if h.title and term_hits(terms, h.title + " " + h.text)))[:limit]


def after_route(state: GraphState) -> Literal["clarify", "plan", "generate"]:
    name = state["decision"]["route"]
    if name == "clarify":
        return "clarify"
    if name == "direct_answer":
        return "generate"
    return "plan"
