"""Search several knowledge bases as one collection.

Every KB of a search is embedded by the same model (``store.kb.check_model`` refuses any
other), so dense distances compare across KBs; what did not compare were the keyword leg's
statistics (idf over one KB's passages, translations kept by one KB's vocabulary). So the
chosen KBs are searched by one statement over all their active passages, with idf and
translations computed over them together: the same documents rank alike, and answer alike,
whether they sit in one KB or are spread over several. Fusing per-KB rankings by rank
instead gave each KB's first hit the same weight, so a weak KB's best passage pushed a
strong KB's second one down (see docs/evaluation.md, "Routing across several knowledge
bases").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from store.search import search

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from store.types import Hit


def search_kbs(pool: ConnectionPool, kbs: Sequence[str], query: str, *, k: int = 10,
               **options: Any) -> list[Hit]:
    """The ``k`` best chunks of the KBs ``kbs`` for ``query``, each marked with its KB.

    ``options`` are ``store.search.search``'s (embedder, filters, principals, reranker...).
    One KB is searched exactly as ``store.search.search`` does."""
    if not kbs:
        return []
    if len(kbs) == 1:
        return [replace(h, kb=kbs[0]) for h in search(pool, kbs[0], query, k=k, **options)]
    return search(pool, list(kbs), query, k=k, **options)
