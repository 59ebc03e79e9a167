"""understand: a standalone query from the question and the thread's earlier turns."""

from __future__ import annotations

import re
import time
from typing import Any

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.nodes.stages import emit
from agent.question_shape import is_chitchat
from agent.state import GraphState, Passage, TopicEvidence, Turn, Understanding, UnderstandInput
from agent.text import alternatives_per_term, content_terms, norm
from agent.wording import plain
from store.tokenize import language_of


def _alternatives(ctx: RunContext, text: str, *, wide: bool = False) -> dict[str, list[str]]:
    """Per topic term of ``text``, its dictionary translations and glossary synonyms that
    stand for it in a passage ("第三季度" is held by "Q3", "年假" by "annual leave");
    ``wide``: a word of many senses also in those it is first of (store.crosslang)."""
    terms = content_terms(text)
    glossary = ctx.glossary()
    # Translated as its terms are read (``agent.wording.plain``): "pwd" is looked up as
    # "password", "how far ahead" as "in advance", and a chat word is no phrase's part.
    found = ctx.translations(plain(text), wide=wide)
    alternatives = alternatives_per_term(terms, found)
    for term in terms:
        for synonym in glossary.get(term.lower(), ()):
            alternatives.setdefault(term, []).append(synonym)
        month = _MONTH.fullmatch(term)
        if month:
            # A month in either language: "8月" is "August" in an English document.
            name = _MONTH_NAMES[int(month.group(1)) - 1]
            alternatives.setdefault(term, []).extend([name, name[:3]])
    return alternatives


_MONTH = re.compile(r"(1[0-2]|[1-9])月")
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december")


def _add_synonyms(u: Understanding, ctx: RunContext) -> None:
    """The query terms' alternatives, for the offline rules (``translated_terms``); glossary
    synonyms the query lacks also widen the keyword search."""
    u["translated_terms"] = _alternatives(ctx, u["query"])
    u["translated_senses"] = _alternatives(ctx, u["query"], wide=True)
    glossary = ctx.glossary()
    present = norm(u["query"])
    expansions = [s for term in [*u["entities"], *u["implicit_context"]]
                  for s in glossary.get(term.lower(), ()) if norm(s) not in present]
    u["expansions"] = list(dict.fromkeys([*u["expansions"], *expansions]))


def _probe(ctx: RunContext, question: str, history: list[Turn]) -> TopicEvidence:
    """Search the question alone: does it name its own topic, or lean on the thread's?"""
    from store.multi_search import search_kbs

    # every KB of the conversation: the question alone may have moved to another one
    hits = search_kbs(ctx.pool, list(ctx.kbs), question, embedder=ctx.embedder,
                      k=ctx.engine.probe_depth, principals=ctx.principals,
                      translator=ctx.translator)
    found = [Passage(chunk_id=h.chunk_id, doc_id=h.doc_id, title=h.title, source=h.source,
                     doc_type=h.doc_type, heading_path=list(h.heading_path), text=h.text,
                     score=h.score, rank=i, round=0, sub_id="probe")
             for i, h in enumerate(hits)]
    return ctx.engine.topic_evidence(question, found, history, _alternatives(ctx, question))


def understand(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    question = state["question"]
    reply = state.get("clarify_reply")
    if reply:
        # The clarification narrows the original question; both are searched together.
        question = f"{question} {reply}"
    emit(runtime, "understanding", language_of(question))
    inp = UnderstandInput(question=question, history=list(state.get("history") or [])[-6:])
    if inp["history"] and not reply and not is_chitchat(question):
        inp["evidence"] = _probe(runtime.context, question, inp["history"])
    u = runtime.context.engine.understand(inp)
    _add_synonyms(u, runtime.context)
    runtime.context.trace.record(
        "understand", started,
        {"question": question, "history_turns": len(inp["history"]),
         "evidence": inp.get("evidence")},
        {"query": u["query"], "is_followup": u["is_followup"], "entities": u["entities"],
         "borrowed": u["implicit_context"], "language": u["language"],
         "translated_terms": u.get("translated_terms", {}),
         "translated_senses": u.get("translated_senses", {})})
    return {"understanding": u, "passages": [], "round": 0, "last_new_chunk_ids": [],
            "pending_queries": [], "attempts": 0, "used_fallback_query": False,
            "plan": {"sub_questions": []}, "searches": []}
