"""finalize: number citations by document, build the turn's result, remember the turn."""

from __future__ import annotations

import time
from typing import Any

import structlog
from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.nodes.evaluate import chain_doc_ids
from agent.question_shape import is_composed
from agent.state import CitedDoc, Draft, GraphState, Passage, SearchRecord, Turn
from agent.text import join_sentences

MAX_HISTORY = 10
log = structlog.get_logger("agent")


def cite_documents(draft: Draft, pool: list[Passage],
                   language: str) -> tuple[str, list[CitedDoc]]:
    """Replace passage numbers with document numbers ``[n]``; one citation per document.
    A refusal cites only what it shows (what was found, beside what is missing)."""
    if draft["refused"] and not any(s["cites"] for s in draft["sentences"]):
        return draft["text"], []
    docs: list[CitedDoc] = []
    by_doc: dict[str, CitedDoc] = {}
    parts: list[str] = []
    for s in draft["sentences"]:
        marks: list[int] = []
        for n in s["cites"]:
            if not 1 <= n <= len(pool):
                continue
            p = pool[n - 1]
            doc = by_doc.get(p["doc_id"])
            if doc is None:
                doc = CitedDoc(n=len(docs) + 1, doc_id=p["doc_id"], title=p["title"],
                               source=p["source"], chunk_ids=[])
                if p.get("kb"):  # only set when the conversation spans several KBs
                    doc["kb"] = p["kb"]
                by_doc[p["doc_id"]] = doc
                docs.append(doc)
            if p["chunk_id"] not in doc["chunk_ids"]:
                doc["chunk_ids"].append(p["chunk_id"])
            if doc["n"] not in marks:
                marks.append(doc["n"])
        parts.append(s["text"] + "".join(f"[{m}]" for m in marks))
    text = join_sentences(parts, language)
    return text, docs


# How many of the first round's hits lead the ranked retrieval. A composed question (a
# comparison, a relative clause, a multi-hop chain) needs what later rounds found next to
# them; for any other, later rounds only refine, and the question's own search ranks best.
# On the stored traces of one full eval run, 10 for non-composed questions raised mtrag
# all-gold@10 from 0.57 to 0.65 and left musique and hotpotqa as they were.
LEAD_COMPOSED = 5
LEAD_SIMPLE = 10


def retrieval_lead(question: str, route: str, chain: list[str]) -> int:
    """How many first-round hits lead the ranking (see ``LEAD_COMPOSED``)."""
    composed = bool(chain) or route == "multi_retrieval" or is_composed(question)
    return LEAD_COMPOSED if composed else LEAD_SIMPLE


def ranked_retrieval(searches: list[SearchRecord], lead: int = LEAD_COMPOSED,
                     chain: list[str] | None = None) -> tuple[list[str], list[int]]:
    """Distinct doc and chunk ids over every search: the documents of a multi-hop
    ``chain`` first, then the first round's top ``lead`` hits (the question's own searches
    lead), then best ranks of every search in turn."""
    items = sorted(
        ((0 if rec["round"] == 1 and rank < lead else 1, rank, rec["round"], i, doc_id,
          chunk_id)
         for i, rec in enumerate(searches)
         for rank, (doc_id, chunk_id) in enumerate(zip(rec["doc_ids"], rec["chunk_ids"],
                                                       strict=True))),
        key=lambda x: x[:4])
    docs = list(dict.fromkeys([*(chain or []), *(x[4] for x in items)]))
    chunks = list(dict.fromkeys(x[5] for x in items))
    return docs, chunks


def _hidden(ctx: RunContext, kbs: list[str], query: str) -> bool:
    """Whether documents the asker may read personally, but not here, would have answered
    (the surface then tells the asker alone); a failed probe never costs the answer."""
    from store.access import answer_hidden

    try:
        return any(answer_hidden(ctx.pool, kb, query, ctx.principals,
                                 asker=ctx.asker_principals, embedder=ctx.embedder)
                   for kb in kbs)
    except Exception:
        log.exception("restricted_probe_failed", kb=ctx.kb)
        return False


def finalize(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    u = state["understanding"]
    draft = state["draft"]
    pool = list(state.get("context") or [])
    text, docs = cite_documents(draft, pool, u["language"])
    searches = list(state.get("searches") or [])
    route = state["decision"]["route"]
    chain = chain_doc_ids(state)
    doc_ids, chunk_ids = ranked_retrieval(
        searches, lead=retrieval_lead(state["question"], route, chain), chain=chain)
    # The text stays the plain refusal (others may see it); the surface tells the asker alone.
    hidden = draft["refused"] and route != "direct_answer" and _hidden(
        runtime.context, [k for k in state.get("kbs") or [] if k in runtime.context.kbs]
        or list(runtime.context.kbs), u["query"])
    result = {
        "text": text, "citations": docs, "refused": draft["refused"], "route": route,
        "restricted_hidden": hidden,
        "rounds": int(state.get("round") or 0), "language": u["language"],
        "rewritten_query": u["query"] if u["query"] != state["question"] else None,
        "retrieved_doc_ids": doc_ids, "retrieved_chunk_ids": chunk_ids,
        "queries": [s["query"] for s in searches],
    }
    searched = list(state.get("kbs") or runtime.context.kbs)
    if len(runtime.context.kbs) > 1:
        result["kbs"] = searched
    # Only the turn's own terms: borrowed ones would snowball through later follow-ups.
    own = [e for e in u["entities"] if e not in u["implicit_context"]][:8]
    turn = Turn(question=state["question"], rewritten=u["query"], entities=own,
                answer=text[:1000], cited=docs, refused=draft["refused"], route=route)
    if len(runtime.context.kbs) > 1:  # what a follow-up stays with (agent.nodes.kb_choice)
        turn["kbs"] = [] if route == "direct_answer" else searched
    history = [*list(state.get("history") or [])[-(MAX_HISTORY - 1):], turn]
    runtime.context.trace.record(
        "finalize", started, {"route": route},
        {"refused": draft["refused"], "restricted_hidden": hidden,
         "cited": [d["doc_id"] for d in docs],
         "cited_chunks": [c for d in docs for c in d["chunk_ids"]]})
    return {"result": result, "history": history, "clarify_reply": None, "rejected": []}
