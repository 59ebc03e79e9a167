"""One turn of a thread: lock, run the graph, collect the result, store the trace."""

from __future__ import annotations

import dataclasses
import time
import uuid
from typing import TYPE_CHECKING, Any

import structlog
from langgraph.types import Command

from agent import cached
from agent.context import RunContext
from agent.errors import TurnTimeoutError
from agent.memory import thread_lock
from agent.normalize import normalize_question
from agent.tracing import TraceRecorder
from agent.types import AnswerResult, Citation, Clarification, OnStage, Question, StageEvent
from store.kbset import EVERY, parse_kb_set, resolve_kb_set
from store.traces import save_trace

if TYPE_CHECKING:
    from agent.deps import AgentDeps
    from store.answer_cache import Lookup

log = structlog.get_logger("agent")


def turn_kbs(deps: AgentDeps, kb: str) -> tuple[str, ...]:
    """The KBs of ``kb`` (one name, a set "hr+it", or "*"); a plain name is taken as is,
    so one KB reads nothing more than before."""
    if len(parse_kb_set(kb)) == 1 and kb != EVERY:
        return (kb,)
    with deps.pool.connection() as conn:
        return resolve_kb_set(conn, kb)  # an unknown KB names the fix


def _config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


def pending_clarification(graph: Any, thread_id: str) -> Clarification | None:
    """The clarification the thread's last run stopped on, if it is still waiting."""
    snapshot = graph.get_state(_config(thread_id))
    for intr in getattr(snapshot, "interrupts", ()) or ():
        value = intr.value if isinstance(intr.value, dict) else {}
        return Clarification(question=str(value.get("question", "")),
                             options=tuple(str(o) for o in value.get("options", [])))
    return None


def run_turn(graph: Any, deps: AgentDeps, q: Question, *, on_stage: OnStage | None,
             resume: str | None) -> AnswerResult:
    """Answer ``q`` (or resume its thread's clarification with ``resume``).

    Every surface's text comes through here, so this is where it is normalised (see
    ``agent.normalize``): no rule, model or stored trace sees the raw form."""
    q = dataclasses.replace(q, text=normalize_question(q.text))
    kbs = turn_kbs(deps, q.kb)
    if len(kbs) == 1:  # "*" over a single KB is that KB, cache and trace included
        q = dataclasses.replace(q, kb=kbs[0])
    resume = None if resume is None else normalize_question(resume)
    started = time.perf_counter()
    trace = TraceRecorder(trace_id=uuid.uuid4().hex, thread_id=q.thread_id)
    bound = structlog.contextvars.bound_contextvars(trace_id=trace.trace_id)
    found: Lookup | None = None
    with bound, thread_lock(deps.pool, q.thread_id, deps.config.lock_timeout_s):
        config = _config(q.thread_id)
        # A set of KBs has no one content version to key cached answers by.
        if resume is None and deps.config.answer_cache and len(kbs) == 1:
            found = cached.check(graph, deps.pool, q, config)
        if found is not None and found.entry is not None:
            values: dict[str, Any] = {"question": q.text,
                                      "result": cached.replay(graph, q, found, config)}
            trace.record("answer_cache", started, {"question": q.text},
                         {"cached_from": found.trace_id})
            result = _from_result(values["result"], trace, started, cached=True)
        else:
            values, result = _run_graph(graph, deps, q, trace, started=started,
                                        on_stage=on_stage, resume=resume)
    extra = ({"cached": True, "cached_from": found.trace_id}
             if found is not None and result.cached else {})
    _store_trace(deps, q, values, result, trace, extra=extra)
    if found is not None and not result.cached:
        cached.remember(deps.pool, q, found, values, result)
    log.info("answered", trace_id=result.trace_id, thread_id=q.thread_id, kb=q.kb,
             route=result.route, rounds=result.rounds, refused=result.refused,
             citations=len(result.citations), clarify=result.clarification is not None,
             cached=result.cached, latency_ms=round(result.latency_ms, 1))
    return result


def _run_graph(graph: Any, deps: AgentDeps, q: Question, trace: TraceRecorder, *,
               started: float, on_stage: OnStage | None,
               resume: str | None) -> tuple[dict[str, Any], AnswerResult]:
    kbs = turn_kbs(deps, q.kb)
    ctx = RunContext(pool=deps.pool, embedder=deps.embedder, engine=deps.engine,
                     config=deps.config, kb=q.kb, kbs=kbs, principals=tuple(q.principals),
                     asker_principals=tuple(q.asker_principals),
                     trace=trace, reranker=deps.reranker, facets_cache=deps.facets_cache,
                     translator=deps.translator, glossaries=deps.glossaries)
    config = _config(q.thread_id)
    resuming = resume is not None and pending_clarification(graph, q.thread_id) is not None
    inp: Any
    if resuming:
        inp = Command(resume=resume)
    else:
        # A reply with nothing pending is simply the next question.
        text = resume if resume is not None else q.text
        inp = {"question": text, "clarify_reply": None}
    limit = deps.config.turn_timeout_s
    for mode, chunk in graph.stream(inp, config, context=ctx,
                                    stream_mode=["custom", "updates"], durability="sync"):
        if limit is not None and time.perf_counter() - started > limit:
            log.warning("turn_timed_out", thread_id=q.thread_id, timeout_s=limit)
            raise TurnTimeoutError(trace.trace_id, limit)
        if mode == "custom" and on_stage is not None and isinstance(chunk, dict):
            on_stage(StageEvent(**chunk))
    snapshot = graph.get_state(config)
    return snapshot.values, _result(snapshot, trace, started)


def _result(snapshot: Any, trace: TraceRecorder, started: float) -> AnswerResult:
    values = snapshot.values
    latency = (time.perf_counter() - started) * 1000
    u = values.get("understanding") or {}
    for intr in getattr(snapshot, "interrupts", ()) or ():
        value = intr.value if isinstance(intr.value, dict) else {}
        clar = Clarification(question=str(value.get("question", "")),
                             options=tuple(str(o) for o in value.get("options", [])))
        return AnswerResult(
            text=clar.question, citations=[], refused=False, route="clarify", rounds=0,
            rewritten_query=u.get("query"), trace_id=trace.trace_id, latency_ms=latency,
            clarification=clar, language=u.get("language", "en"))
    return _from_result(values["result"], trace, started)


def _from_result(r: dict[str, Any], trace: TraceRecorder, started: float, *,
                 cached: bool = False) -> AnswerResult:
    """The AnswerResult of a finished turn's ``result`` (computed now or cached)."""
    return AnswerResult(
        text=r["text"],
        citations=[Citation(n=c["n"], doc_id=c["doc_id"], title=c["title"],
                            source=c["source"], chunk_ids=tuple(c["chunk_ids"]),
                            kb=c.get("kb", ""))
                   for c in r["citations"]],
        refused=bool(r["refused"]), route=r["route"], rounds=int(r["rounds"]),
        rewritten_query=r["rewritten_query"], trace_id=trace.trace_id,
        latency_ms=(time.perf_counter() - started) * 1000,
        clarification=None, retrieved_doc_ids=list(r["retrieved_doc_ids"]),
        retrieved_chunk_ids=list(r["retrieved_chunk_ids"]),
        restricted_hidden=bool(r.get("restricted_hidden", False)),
        language=r.get("language", "en"), cached=cached, kbs=list(r.get("kbs", [])))


def _kb_choice(trace: TraceRecorder) -> dict[str, Any]:
    """The KBs the turn searched and why, from its route step (several KBs only)."""
    for step in trace.steps:
        out = step.get("output") or {}
        if step.get("node") == "route" and "kbs" in out:
            return {"kbs_searched": out["kbs"], "kb_reason": out.get("kb_reason"),
                    "kb_shares": out.get("kb_shares")}
    return {}


def _store_trace(deps: AgentDeps, q: Question, values: dict[str, Any], result: AnswerResult,
                 trace: TraceRecorder, *, extra: dict[str, Any]) -> None:
    """Keep the whole turn so a vote or a bug report can walk it back step by step."""
    u = values.get("understanding") or {}
    record = {
        "trace_id": trace.trace_id, "thread_id": q.thread_id, "kb": q.kb,
        "user": q.user, "principals": list(q.principals),
        "question": values.get("question", q.text), "rewritten_query": u.get("query"),
        "route": result.route, "rounds": result.rounds, "refused": result.refused,
        "answer": result.text, "latency_ms": round(result.latency_ms, 1),
        "citations": [{"n": c.n, "doc_id": c.doc_id, "title": c.title, "source": c.source,
                       "chunk_ids": list(c.chunk_ids)} for c in result.citations],
        "retrieved_chunk_ids": result.retrieved_chunk_ids,
        "cited_chunk_ids": [i for c in result.citations for i in c.chunk_ids],
        "searches": values.get("searches") or [],
        "steps": trace.steps,
        **_kb_choice(trace),
        **extra,
    }
    try:
        with deps.pool.connection() as conn:
            save_trace(conn, record)
    except Exception:  # a trace is worth less than the answer it describes
        log.exception("trace_store_failed", trace_id=trace.trace_id)
