"""The engine named by settings: offline by default, the LLM engine when configured."""

from __future__ import annotations

from typing import Any

from agent.engine import Engine, OfflineEngine


def engine_from_settings(settings: Any) -> Engine:
    """``RAGBOT_ENGINE=llm`` builds ``agent.llm``'s engine (offline fallback per step)."""
    if getattr(settings, "engine", "offline") != "llm":
        return OfflineEngine()
    from agent.llm import build_engine

    return build_engine(settings)
