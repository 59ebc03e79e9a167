"""Stage events sent on LangGraph's custom stream (forwarded to ``on_stage`` by the runner)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.messages import stage_message
from agent.state import Language, Stage


def emit(runtime: Runtime[RunContext], stage: Stage, language: Language,
         round_: int | None = None) -> None:
    max_rounds = runtime.context.config.max_rounds if round_ is not None else None
    runtime.stream_writer({
        "stage": stage, "round": round_, "max_rounds": max_rounds,
        "message": stage_message(stage, language, round_, max_rounds),
    })
