"""route: direct_answer | single_retrieval | multi_retrieval | clarify."""

from __future__ import annotations

import time
from typing import Any, Literal

import structlog
from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.nodes.kb_choice import kb_labels, kb_options, settle
from agent.state import GraphState, RouteDecision, RouteInput, Spread, Turn
from agent.text import content_terms, term_hits
from agent.vague import needs_kb_evidence

log = structlog.get_logger("agent")


def route(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    ctx = runtime.context
    u = state["understanding"]
    facets = ctx.facets()
    inp = RouteInput(question=state["question"], understanding=u, facets=facets)
    inp["thread_topic"] = _thread_topic(state.get("history", []))
    words = ([] if u["is_followup"] or inp["thread_topic"]
             else needs_kb_evidence(state["question"]))
    if words and (spread := _spread(ctx, words)) is not None:
        inp["spread"] = spread
    if len(ctx.kbs) > 1:
        kb_opts, offline_choice = kb_options(ctx, u)
        inp["knowledge_bases"] = kb_opts
    decision = ctx.engine.route(inp)
    choice = (settle(state, ctx, u, offline_choice, decision.get("kbs"))
              if len(ctx.kbs) > 1 else None)
    labels: dict[str, str] = {}
    if decision["route"] == "clarify" and state.get("clarify_reply"):
        # Asked once already this turn: search with what the user told us.
        decision = RouteDecision(route="single_retrieval", reason="clarified by the user",
                                 clarification=None)
    if decision["route"] == "clarify" and not facets["titles"]:
        decision = RouteDecision(route="single_retrieval",
                                 reason="nothing in the KB to offer as options",
                                 clarification=None)
    request = decision["clarification"]
    kbs = choice["kbs"] if choice is not None else list(ctx.kbs)
    if decision["route"] == "clarify" and request is not None and len(kbs) > 1:
        # The question fits several KBs equally: asking which one narrows it most.
        labels = kb_labels(inp.get("knowledge_bases", []), kbs[:3])
        request["options"] = list(labels)
    elif decision["route"] == "clarify" and request is not None:
        # Titles that name the words lead; then documents a search finds that hold them.
        # Either beats a list of doc types.
        named = [o for o in request["options"] if o in facets["titles"]]
        options = list(dict.fromkeys([*named, *_titles_found(ctx, kbs, u["query"])]))
        if len(options) >= 2:
            request["options"] = options[:3]
    out: dict[str, Any] = dict(decision)
    if choice is not None:
        out["kbs"], out["kb_reason"], out["kb_shares"] = (choice["kbs"], choice["reason"],
                                                          choice["shares"])
    ctx.trace.record("route", started, {"query": u["query"]}, out)
    return {"decision": decision, "kbs": kbs, "kb_labels": labels}


def _thread_topic(history: list[Turn]) -> list[str]:
    """What the thread's answered turns were about (a refused turn lends nothing)."""
    return list(dict.fromkeys(e for t in history if not t["refused"] for e in t["entities"]))


def _spread(ctx: RunContext, words: list[str]) -> Spread | None:
    """How many of the conversation's documents hold each of ``words`` (None when the
    lookup fails: the words alone then decide)."""
    from store.kb import get_kb
    from store.kb_vocab import document_spread

    documents, holding = 0, dict.fromkeys(words, 0)
    try:
        with ctx.pool.connection() as conn:
            for kb in ctx.kbs:
                total, held = document_spread(conn, get_kb(conn, kb).id, words, ctx.principals)
                documents += total
                for w, n in held.items():
                    holding[w] += n
    except Exception:
        log.exception("route_spread_failed", kb=ctx.kb)
        return None
    return Spread(documents=documents, holding=holding)


def _titles_found(ctx: RunContext, kbs: list[str], query: str, limit: int = 3) -> list[str]:
    """The titles of the documents a search for ``query`` finds first that hold its words,
    as clarify options (the asker may read each); [] when the search fails."""
    from store.multi_search import search_kbs

    try:
        hits = search_kbs(ctx.pool, kbs, query, embedder=ctx.embedder, k=10,
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
