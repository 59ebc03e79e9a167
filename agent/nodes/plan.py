"""plan: sub-questions with dependencies and filters that exist in the KB."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.state import FilterSpec, GraphState, Plan, PlanInput, SubQuestion, asked


def _known_filters(sub: SubQuestion, doc_types: list[str], sources: list[str]) -> SubQuestion:
    """Drop filter values the KB does not hold: a filter on nothing finds nothing."""
    f = sub["filters"]
    kept = FilterSpec(doc_types=[d for d in f["doc_types"] if d in doc_types],
                      sources=[s for s in f["sources"]
                               if any(x == s or x.startswith(s) for x in sources)])
    return SubQuestion(id=sub["id"], query=sub["query"], depends_on=sub["depends_on"],
                       filters=kept)


def plan(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    facets = runtime.context.facets()
    raw = runtime.context.engine.plan(PlanInput(
        question=asked(state), understanding=state["understanding"],
        route=state["decision"]["route"], facets=facets))
    subs = [_known_filters(s, facets["doc_types"], facets["sources"])
            for s in raw["sub_questions"]]
    ids = {s["id"] for s in subs}
    subs = [SubQuestion(id=s["id"], query=s["query"], filters=s["filters"],
                        depends_on=[d for d in s["depends_on"] if d in ids and d != s["id"]])
            for s in subs if s["query"].strip()]
    if not subs:
        subs = [SubQuestion(id="q1", query=state["understanding"]["query"], depends_on=[],
                            filters=FilterSpec(doc_types=[], sources=[]))]
    result = Plan(sub_questions=subs)
    runtime.context.trace.record("plan", started, {"route": state["decision"]["route"]},
                                 dict(result))
    return {"plan": result, "pending_queries": subs}
