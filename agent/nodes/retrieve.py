"""retrieve: hybrid search per pending query with the asker's principals.

Independent sub-questions are searched concurrently; a dependent one is rewritten with the
bridge entity its dependencies found, then searched.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.nodes.stages import emit
from agent.state import BridgeInput, GraphState, Passage, SearchRecord, SubQuestion
from agent.text import LIST_ITEM
from agent.tracing import hits_snapshot
from store.continuation import list_continuations
from store.types import SearchFilters


def _search(ctx: RunContext, kbs: list[str], sub: SubQuestion, round_: int) -> list[Passage]:
    from store.multi_search import search_kbs

    f = sub["filters"]
    filters = (SearchFilters(doc_types=tuple(f["doc_types"]), sources=tuple(f["sources"]))
               if f["doc_types"] or f["sources"] else None)
    hits = search_kbs(ctx.pool, kbs, sub["query"], embedder=ctx.embedder, k=ctx.config.k,
                      filters=filters, principals=ctx.principals, reranker=ctx.reranker,
                      translator=ctx.translator)
    # A hit that ends on a list item brings the next chunk of its section: the list's
    # later steps (see store.continuation); it takes its hit's rank.
    found_ids = {h.chunk_id for h in hits}
    more = list_continuations(ctx.pool, [h for h in hits if _ends_in_list_item(h.text)],
                              ctx.principals)
    ranked = [(i, x) for i, h in enumerate(hits)
              for x in [h, more.get(h.chunk_id)] if x is not None
              and (x is h or x.chunk_id not in found_ids)]
    found = [Passage(chunk_id=h.chunk_id, doc_id=h.doc_id, title=h.title, source=h.source,
                     doc_type=h.doc_type, heading_path=list(h.heading_path), text=h.text,
                     score=h.score, rank=i, round=round_, sub_id=sub["id"])
             for i, h in ranked]
    for passage, (_, hit) in zip(found, ranked, strict=True):
        if len(ctx.kbs) > 1:  # citations name the KB only when the conversation spans several
            passage["kb"] = hit.kb
        if hit.date:
            passage["date"] = hit.date
    return found


def _ends_in_list_item(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and bool(LIST_ITEM.match(lines[-1]))


def _record(sub: SubQuestion, round_: int, found: list[Passage],
            bridge_entity: str | None = None) -> SearchRecord:
    return SearchRecord(id=sub["id"], query=sub["query"], round=round_, filters=sub["filters"],
                        chunk_ids=[p["chunk_id"] for p in found],
                        doc_ids=[p["doc_id"] for p in found], bridge_entity=bridge_entity)


def retrieve(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    ctx = runtime.context
    kbs = [k for k in state.get("kbs") or [] if k in ctx.kbs] or list(ctx.kbs)
    round_ = int(state.get("round") or 0) + 1
    emit(runtime, "searching", state["understanding"]["language"], round_)
    pending = list(state.get("pending_queries") or [])
    independent = [s for s in pending if not s["depends_on"]]
    dependent = [s for s in pending if s["depends_on"]]
    results: dict[str, list[Passage]] = {}
    records: list[SearchRecord] = []
    if len(independent) > 1:
        with ThreadPoolExecutor(max_workers=min(len(independent), 4)) as pool:
            found_lists = list(pool.map(lambda s: _search(ctx, kbs, s, round_), independent))
    else:
        found_lists = [_search(ctx, kbs, s, round_) for s in independent]
    for sub, found in zip(independent, found_lists, strict=True):
        results[sub["id"]] = found
        records.append(_record(sub, round_, found, sub.get("entity")))
    for sub in dependent:  # in plan order: a later step may depend on an earlier one
        found_before = [p for d in sub["depends_on"] for p in results.get(d, [])]
        bridge = ctx.engine.bridge(BridgeInput(sub_question=sub, found=found_before))
        hop = SubQuestion(id=sub["id"], query=bridge["query"] or sub["query"],
                          depends_on=sub["depends_on"], filters=sub["filters"])
        found = _search(ctx, kbs, hop, round_)
        results[sub["id"]] = found
        records.append(_record(hop, round_, found, bridge["bridge_entity"]))
    used_fallback = bool(state.get("used_fallback_query"))
    if round_ == 1 and not any(results.values()):
        # The rewrite found nothing: the user's own words may do better.
        raw = state["question"]
        if all(r["query"] != raw for r in records):
            sub = SubQuestion(id="raw", query=raw, depends_on=[],
                              filters={"doc_types": [], "sources": []})
            results["raw"] = _search(ctx, kbs, sub, round_)
            records.append(_record(sub, round_, results["raw"]))
            used_fallback = True
    pool_before = list(state.get("passages") or [])
    seen = {p["chunk_id"] for p in pool_before}
    round_ids: list[int] = []
    new_passages: list[Passage] = []
    for found in results.values():
        for p in found:
            if p["chunk_id"] not in round_ids:
                round_ids.append(p["chunk_id"])
            if p["chunk_id"] not in seen:
                seen.add(p["chunk_id"])
                new_passages.append(p)
    ctx.trace.record(
        "retrieve", started,
        {"round": round_, "queries": [{"id": r["id"], "query": r["query"],
                                       "filters": r["filters"],
                                       "bridge_entity": r["bridge_entity"]} for r in records]},
        {"hits": hits_snapshot([p for f in results.values() for p in f], 40),
         "new_chunks": len(new_passages), "fallback_to_raw_question": used_fallback})
    return {"passages": pool_before + new_passages, "round": round_,
            "round_chunk_ids": round_ids,
            "last_new_chunk_ids": [p["chunk_id"] for p in new_passages],
            "searches": list(state.get("searches") or []) + records,
            "pending_queries": [], "used_fallback_query": used_fallback}
