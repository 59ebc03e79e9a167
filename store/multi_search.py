"""Search several knowledge bases and fuse their rankings by rank.

Scores are not comparable across KBs (each KB's keyword idf and dense neighbourhood are its
own), so each KB is searched on its own and the lists are fused by reciprocal rank (RRF,
k = 60): a KB's first hit weighs the same as another KB's first hit. One KB is searched
exactly as ``store.search.search`` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from store.fusion import RRF_K
from store.search import search

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from store.types import Hit


def search_kbs(pool: ConnectionPool, kbs: Sequence[str], query: str, *, k: int = 10,
               weights: Mapping[str, float] | None = None, **options: Any) -> list[Hit]:
    """The ``k`` best chunks of the KBs ``kbs`` for ``query``, each marked with its KB.

    ``options`` are ``store.search.search``'s (embedder, filters, principals, reranker...).
    ``weights`` scale a KB's reciprocal ranks (default 1 each)."""
    if not kbs:
        return []
    if len(kbs) == 1:
        return [replace(h, kb=kbs[0]) for h in search(pool, kbs[0], query, k=k, **options)]
    ranked = {kb: search(pool, kb, query, k=k, **options) for kb in kbs}
    return fuse_by_rank(ranked, k, weights)


def fuse_by_rank(ranked: Mapping[str, Sequence[Hit]], k: int,
                 weights: Mapping[str, float] | None = None) -> list[Hit]:
    """One list from per-KB rankings: each hit scores ``weight / (RRF_K + rank)``; ties go to
    the better rank, then to the KB named first."""
    order = {kb: i for i, kb in enumerate(ranked)}
    scored = []
    for kb, hits in ranked.items():
        weight = 1.0 if weights is None else float(weights.get(kb, 1.0))
        for rank, hit in enumerate(hits, start=1):
            scored.append((weight / (RRF_K + rank), rank, order[kb], replace(hit, kb=kb)))
    scored.sort(key=lambda x: (-x[0], x[1], x[2]))
    return [replace(h, score=s) for s, _, _, h in scored[:k]]
