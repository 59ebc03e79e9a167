"""What every turn of the agent needs, built once by ``agent.api.build_agent``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.context import FacetsCache
from agent.types import AgentConfig
from store.glossary import GlossaryCache

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from agent.engine import Engine
    from store.embedder import Embedder


@dataclass
class AgentDeps:
    """Everything a turn needs; passed to the graph through LangGraph's runtime context."""

    pool: ConnectionPool
    embedder: Embedder
    engine: Engine
    checkpointer: Any  # langgraph BaseCheckpointSaver
    reranker: Any | None = None
    config: AgentConfig = field(default_factory=AgentConfig)
    facets_cache: FacetsCache = field(default_factory=FacetsCache)
    # Query terms translated into the KB's other language (store.crosslang); None: off.
    translator: Any | None = None
    # The KB's office glossary (store.glossary), re-read a while after an ingest.
    glossaries: GlossaryCache = field(default_factory=GlossaryCache)
