"""The per-turn run context handed to nodes through LangGraph's ``Runtime``.

Nodes never look anything up themselves: the pool, embedder, engine and knobs arrive here,
built by ``agent.runner`` for each turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.state import Facets

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from agent.api import AgentConfig
    from agent.engine import Engine
    from agent.tracing import TraceRecorder
    from store.embedding import Embedder


@dataclass
class RunContext:
    pool: ConnectionPool
    embedder: Embedder
    engine: Engine
    config: AgentConfig
    kb: str
    principals: tuple[str, ...]
    trace: TraceRecorder
    reranker: Any | None = None
    _facets: Facets | None = field(default=None, repr=False)

    def facets(self) -> Facets:
        """What the KB holds for these principals; read once per turn."""
        if self._facets is None:
            from store.search import kb_facets

            raw = kb_facets(self.pool, self.kb, self.principals)
            self._facets = Facets(doc_types=list(raw.get("doc_types", [])),
                                  titles=list(raw.get("titles", [])),
                                  sources=list(raw.get("sources", [])))
        return self._facets
