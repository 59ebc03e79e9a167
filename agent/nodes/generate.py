"""generate: the answer from the trimmed context pool (or a direct reply)."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.nodes.answer_stream import VerifiedPrefix
from agent.nodes.evaluate import chain_doc_ids
from agent.nodes.stages import emit
from agent.state import GenerateInput, GraphState, Passage, asked
from store.tokenize import count_tokens


def context_pool(passages: list[Passage], budget_tokens: int,
                 first: list[str] | None = None) -> list[Passage]:
    """Distinct chunks, best ranks of every search first, within ``budget_tokens``; the
    chunks of the documents in ``first`` (a multi-hop chain) lead, in that order."""
    lead = {doc_id: i for i, doc_id in enumerate(first or [])}
    ordered = sorted(passages, key=lambda p: (lead.get(p["doc_id"], len(lead)), p["rank"],
                                              p["round"], p["sub_id"]))
    out: list[Passage] = []
    seen: set[int] = set()
    used = 0
    for p in ordered:
        if p["chunk_id"] in seen:
            continue
        cost = count_tokens(p["text"])
        if out and used + cost > budget_tokens:
            continue
        seen.add(p["chunk_id"])
        out.append(p)
        used += cost
    return out


def generate(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    ctx = runtime.context
    u = state["understanding"]
    emit(runtime, "writing", u["language"])
    attempts = int(state.get("attempts") or 0)
    chain = chain_doc_ids(state)
    pool = context_pool(list(state.get("passages") or []), ctx.config.context_tokens, chain)
    # The first sub-question is the question itself (plus synonyms): not an extra query.
    queries = [s["query"] for s in state.get("searches") or [] if s["id"] not in ("q1", "raw")]
    inp = GenerateInput(
        question=asked(state), understanding=u, route=state["decision"]["route"],
        queries=[u["query"], *[q for q in queries if q != u["query"]]],
        passages=pool, attempt=attempts, rejected=list(state.get("rejected") or []),
        chain=chain)
    # Only the first draft is shown as it is written: a second one follows a rejection and
    # may not begin as the first did; verify shows it once it is judged.
    shown = VerifiedPrefix(runtime, pool, u["language"])
    draft = (ctx.engine.generate_streaming(inp, shown.offer)
             if attempts == 0 and inp["route"] != "direct_answer" else ctx.engine.generate(inp))
    ctx.trace.record(
        "generate", started,
        {"attempt": attempts, "context_chunks": [p["chunk_id"] for p in pool],
         "rejected": len(state.get("rejected") or [])},
        {"refused": draft["refused"], "sentences": len(draft["sentences"]),
         "cites": [s["cites"] for s in draft["sentences"]]})
    return {"draft": draft, "context": pool}
