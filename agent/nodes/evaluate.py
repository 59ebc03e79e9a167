"""evaluate: is the pool enough? If not, the next queries; bounded rounds, overlap stop."""

from __future__ import annotations

import time
from typing import Any, Literal

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.nodes.stages import emit
from agent.state import EvaluateInput, Evaluation, GraphState, asked


def round_overlap(round_ids: list[int], new_ids: list[int]) -> float:
    """Share of this round's hits that earlier rounds had already found."""
    if not round_ids:
        return 1.0
    return 1 - len(new_ids) / len(round_ids)


def evaluate(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    ctx = runtime.context
    cfg = ctx.config
    round_ = int(state["round"])
    emit(runtime, "evaluating", state["understanding"]["language"])
    ev = ctx.engine.evaluate(EvaluateInput(
        question=asked(state), understanding=state["understanding"], plan=state["plan"],
        passages=list(state.get("passages") or []),
        new_chunk_ids=list(state.get("last_new_chunk_ids") or []),
        round=round_, max_rounds=cfg.max_rounds, searches=list(state.get("searches") or [])))
    overlap = round_overlap(list(state.get("round_chunk_ids") or []),
                            list(state.get("last_new_chunk_ids") or []))
    stop = None
    if ev["next_queries"] and round_ >= cfg.max_rounds:
        stop = "round cap reached"
    elif ev["next_queries"] and round_ > 1 and overlap >= cfg.overlap_stop:
        stop = f"round {round_} found little new ({overlap:.0%} seen before)"
    if stop:
        ev = Evaluation(sufficient=ev["sufficient"], missing=ev["missing"], next_queries=[],
                        reason=stop, chain=ev.get("chain", []), related=ev.get("related", []))
    ctx.trace.record(
        "evaluate", started,
        {"round": round_, "pool": len(state.get("passages") or []),
         "overlap": round(overlap, 3)},
        {"sufficient": ev["sufficient"], "missing": ev["missing"], "reason": ev["reason"],
         "next_queries": [q["query"] for q in ev["next_queries"]],
         "chain": ev.get("chain", [])})
    return {"evaluation": ev, "pending_queries": ev["next_queries"]}


def chain_doc_ids(state: GraphState) -> list[str]:
    """A multi-hop chain's documents (anchor first), then the others its hops landed on;
    [] when the question was not followed as a chain."""
    ev: Evaluation | dict[str, Any] = state.get("evaluation") or {}
    chain = list(ev.get("chain") or [])
    return [*chain, *(d for d in ev.get("related") or [] if d not in chain)] if chain else []


def after_evaluate(state: GraphState) -> Literal["retrieve", "generate"]:
    return "retrieve" if state.get("pending_queries") else "generate"
