"""understand: a standalone query from the question and the thread's earlier turns."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.nodes.stages import emit
from agent.offline.text import alternatives_per_term, content_terms, language_of
from agent.state import GraphState, UnderstandInput


def understand(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    question = state["question"]
    reply = state.get("clarify_reply")
    if reply:
        # The clarification narrows the original question; both are searched together.
        question = f"{question} {reply}"
    emit(runtime, "understanding", language_of(question))
    inp = UnderstandInput(question=question, history=list(state.get("history") or [])[-6:])
    u = runtime.context.engine.understand(inp)
    translator = runtime.context.translator
    if translator is not None:
        # The offline rules then count "年假" held by an English passage saying "annual leave".
        found = translator.for_query(runtime.context.pool, runtime.context.kb, u["query"])
        u["translated_terms"] = alternatives_per_term(content_terms(u["query"]), found)
    runtime.context.trace.record(
        "understand", started,
        {"question": question, "history_turns": len(inp["history"])},
        {"query": u["query"], "is_followup": u["is_followup"], "entities": u["entities"],
         "borrowed": u["implicit_context"], "language": u["language"],
         "translated_terms": u.get("translated_terms", {})})
    return {"understanding": u, "passages": [], "round": 0, "last_new_chunk_ids": [],
            "pending_queries": [], "attempts": 0, "used_fallback_query": False,
            "plan": {"sub_questions": []}, "searches": []}
