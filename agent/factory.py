"""The engine named by settings: offline by default, the LLM engine when configured."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.engine import Engine, OfflineEngine
from agent.types import AgentConfig

if TYPE_CHECKING:
    from store.crosslang import Translator


def engine_from_settings(settings: Any) -> Engine:
    """``RAGBOT_ENGINE=llm`` builds ``agent.llm``'s engine (offline fallback per step)."""
    if getattr(settings, "engine", "offline") != "llm":
        return OfflineEngine()
    from agent.llm import build_engine

    return build_engine(settings)


def config_from_settings(settings: Any) -> AgentConfig:
    """The graph's knobs that settings own (the turn deadline, ``RAGBOT_TURN_TIMEOUT_S``;
    the answer cache, ``RAGBOT_ANSWER_CACHE``)."""
    return AgentConfig(turn_timeout_s=getattr(settings, "turn_timeout_s", None),
                       answer_cache=bool(getattr(settings, "answer_cache", True)))


def translator_from_settings(settings: Any) -> Translator:
    """The cross-language translator, keeping its parsed dictionary under
    ``RAGBOT_HOME/cache`` so a new process reads it in about 0.1 s instead of parsing it."""
    from store.crosslang import Translator

    home = getattr(settings, "home", None)
    return Translator(cache_dir=home / "cache" if home is not None else None)
