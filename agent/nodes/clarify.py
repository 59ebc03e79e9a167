"""clarify: pause the run with a question and options; the reply resumes it."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from agent.context import RunContext
from agent.state import GraphState


def clarify(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    request = state["decision"]["clarification"] or {"question": "", "options": []}
    # Re-executed from the top on resume; interrupt() then returns the user's reply.
    reply = interrupt({"question": request["question"], "options": request["options"]})
    text = str(reply).strip()
    runtime.context.trace.record("clarify", started, dict(request), {"reply": text})
    return {"clarify_reply": text}
