"""verify: every sentence supported by a passage it cites; else regenerate once or refuse."""

from __future__ import annotations

import time
from typing import Any, Literal

from langgraph.runtime import Runtime

from agent import messages
from agent.context import RunContext
from agent.nodes.answer_stream import emit_answer
from agent.nodes.stages import emit
from agent.state import Draft, GraphState, Passage, VerifyInput, asked


def refusal_with_sources(language: str, passages: list[Passage], limit: int = 3) -> Draft:
    """A refusal that still points at what was found, without claiming it answers."""
    lang = "zh" if language == "zh" else "en"
    titles = list(dict.fromkeys(p["title"] or p["doc_id"] for p in passages))[:limit]
    text = messages.REFUSAL[lang] if not titles else (
        messages.REFUSAL_WITH_SOURCES[lang] + "\n" + "\n".join(f"- {t}" for t in titles))
    return Draft(sentences=[], refused=True, text=text)


def verify(state: GraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    started = time.perf_counter()
    ctx = runtime.context
    lang = state["understanding"]["language"]
    emit(runtime, "verifying", lang)
    draft = state["draft"]
    pool = list(state.get("context") or [])
    verdict = ctx.engine.verify(VerifyInput(question=asked(state), draft=draft,
                                            passages=pool))
    attempts = int(state.get("attempts") or 0)
    update: dict[str, Any] = {"verdict": verdict}
    if verdict["supported"] and not draft["refused"] and draft["sentences"]:
        emit_answer(runtime, draft["sentences"], pool, lang)  # all of it is verified now
    if not verdict["supported"]:
        if attempts == 0:
            update.update(attempts=1, rejected=verdict["unsupported"])
        else:
            update["draft"] = refusal_with_sources(lang, pool)
            update["attempts"] = attempts + 1
    ctx.trace.record("verify", started, {"attempt": attempts, "refused": draft["refused"]},
                     {"supported": verdict["supported"], "unsupported": verdict["unsupported"],
                      "reason": verdict["reason"]})
    return update


def after_verify(state: GraphState) -> Literal["generate", "finalize"]:
    if not state["verdict"]["supported"] and int(state.get("attempts") or 0) == 1:
        return "generate"
    return "finalize"
