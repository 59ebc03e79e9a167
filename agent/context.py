"""The per-turn run context handed to nodes through LangGraph's ``Runtime``.

Nodes never look anything up themselves: the pool, embedder, engine and knobs arrive here,
built by ``agent.runner`` for each turn.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.state import Facets
from store.glossary import GlossaryCache

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from agent.engine import Engine
    from agent.tracing import TraceRecorder
    from agent.types import AgentConfig
    from store.embedder import Embedder


class FacetsCache:
    """KB facets per (kb, principals), re-read after ``ttl_s``: one turn needs them for
    routing and planning, and they change only when documents are ingested."""

    def __init__(self, ttl_s: float = 30.0) -> None:
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, tuple[str, ...]], tuple[float, Facets]] = {}

    def get(self, pool: ConnectionPool, kb: str, principals: tuple[str, ...]) -> Facets:
        key = (kb, tuple(sorted(principals)))
        now = time.monotonic()
        with self._lock:
            hit = self._entries.get(key)
        if hit is not None and now - hit[0] < self.ttl_s:
            return hit[1]
        from store.search import kb_facets

        raw = kb_facets(pool, kb, principals)
        facets = Facets(doc_types=list(raw.get("doc_types", [])),
                        titles=list(raw.get("titles", [])),
                        sources=list(raw.get("sources", [])))
        with self._lock:
            self._entries[key] = (now, facets)
        return facets


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
    facets_cache: FacetsCache = field(default_factory=FacetsCache, repr=False)
    translator: Any | None = None
    asker_principals: tuple[str, ...] = ()  # see agent.api.Question
    glossaries: GlossaryCache = field(default_factory=GlossaryCache, repr=False)
    # The conversation's knowledge bases (``kb`` is their key, ``store.kbset``); a turn
    # searches those the router picks among them.
    kbs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.kbs:
            self.kbs = (self.kb,)

    def facets(self) -> Facets:
        """What the conversation's KBs hold for these principals."""
        parts = [self.facets_cache.get(self.pool, kb, self.principals) for kb in self.kbs]
        if len(parts) == 1:
            return parts[0]
        return Facets(doc_types=sorted({v for p in parts for v in p["doc_types"]}),
                      titles=sorted({v for p in parts for v in p["titles"]}),
                      sources=sorted({v for p in parts for v in p["sources"]}))

    def glossary(self) -> dict[str, tuple[str, ...]]:
        """The office glossaries of the conversation's KBs, merged."""
        parts = [self.glossaries.get(self.pool, kb) for kb in self.kbs]
        if len(parts) == 1:
            return parts[0]
        merged: dict[str, tuple[str, ...]] = {}
        for part in parts:
            for term, synonyms in part.items():
                merged[term] = tuple(dict.fromkeys([*merged.get(term, ()), *synonyms]))
        return merged

    def translations(self, query: str, *, wide: bool = False) -> dict[str, list[str]]:
        """``query``'s words translated into what the conversation's KBs hold, taken as one
        collection: a word rare in one small KB but common across the set names no topic,
        as it would not with the same documents in one KB (``wide``: see
        ``store.crosslang.Translator.translations``)."""
        if self.translator is None:
            return {}
        return dict(self.translator.for_query(self.pool, list(self.kbs), query, wide=wide))
