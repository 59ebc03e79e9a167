"""The engine named by settings: offline by default, the LLM engine when configured."""

from __future__ import annotations

from typing import Any

import structlog

from agent.engine import Engine, OfflineEngine

log = structlog.get_logger("agent")


def engine_from_settings(settings: Any) -> Engine:
    """``settings.engine == "llm"`` builds ``agent.llm.LLMEngine`` around the offline rules."""
    offline = OfflineEngine()
    if getattr(settings, "engine", "offline") != "llm":
        return offline
    try:
        from agent import llm
    except ImportError:
        log.warning("llm_engine_unavailable", fix="install langchain-openai")
        return offline
    build = getattr(llm, "engine_from_settings", None) or getattr(llm, "build_llm_engine", None)
    if build is not None:
        return build(settings, fallback=offline)  # type: ignore[no-any-return]
    return llm.LLMEngine(settings=settings, fallback=offline)  # type: ignore[no-any-return]
