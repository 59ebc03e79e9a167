"""understand: a standalone query from the question and the thread's earlier turns."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.nodes.stages import emit
from agent.offline.text import language_of
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
    runtime.context.trace.record(
        "understand", started,
        {"question": question, "history_turns": len(inp["history"])},
        {"query": u["query"], "is_followup": u["is_followup"], "entities": u["entities"],
         "borrowed": u["implicit_context"], "language": u["language"]})
    return {"understanding": u, "passages": [], "round": 0, "last_new_chunk_ids": [],
            "pending_queries": [], "attempts": 0, "used_fallback_query": False,
            "plan": {"sub_questions": []}, "searches": []}
