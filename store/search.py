"""Hybrid search: dense (pgvector HNSW) + keyword (full text), fused by weighted RRF in SQL.

One parameterised statement (after pgvector-python's ``examples/hybrid_search/rrf.py``) ranks
both sides and fuses them, so filters, the access list and the active generation are applied
inside each side's scan, before ranking: a filtered search still returns k rows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psycopg
import structlog

from store.facets import kb_facets
from store.fusion import RRF_K, FusionMode, FusionWeights, fusion_weights
from store.kb import check_model, get_kb
from store.term_stats import term_frequencies
from store.tokenize import is_chinese, query_terms
from store.types import PUBLIC, Hit, SearchFilters

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from store.crosslang import Translator
    from store.embedder import Embedder
    from store.rerank import Reranker

log = structlog.get_logger(__name__)

DEFAULT_CANDIDATES = 50
# A long pasted question would otherwise OR dozens of terms, each adding a posting-list scan.
MAX_QUERY_TERMS = 32
# About how many chunks the keyword side ranks per query: common terms beyond it only score
# chunks, they do not select them (ranking is about 10 us a chunk; see bench.keyword_plan).
KEYWORD_RANKED_ROWS = 2000
# A query whose rarest term is in more chunks than this many budgets ranks only the chunks
# holding its two rarest terms.
COMMON_QUERY_FACTOR = 10
# At most this many chunks are ranked whatever the estimates said (one very common word
# alone would otherwise rank a large share of the corpus); beyond it, ranking is partial.
KEYWORD_RANKED_CAP = 20_000
# Candidate list of the HNSW scan; with iterative scans on, it is the first batch, not a cap.
_EF_SEARCH_MIN = 100


def _filter_sql(filters: SearchFilters | None, params: dict[str, Any]) -> str:
    """SQL conditions on ``c`` (chunks) for ``filters``; values go into ``params``."""
    if filters is None:
        return ""
    parts: list[str] = []
    if filters.doc_types:
        params["doc_types"] = list(filters.doc_types)
        parts.append("c.doc_type = ANY(%(doc_types)s)")
    if filters.sources:
        exact = [s for s in filters.sources if s]
        # "docs/hr" also matches everything under docs/hr/ (and "x.jsonl" its lines "x.jsonl#id").
        prefixes = [p for s in exact for p in _like_prefixes(s)]
        params["sources"] = exact
        params["source_prefixes"] = prefixes
        parts.append("(c.source = ANY(%(sources)s) OR c.source LIKE ANY(%(source_prefixes)s))")
    if filters.updated_after is not None:
        params["updated_after"] = filters.updated_after
        parts.append("c.updated_at > %(updated_after)s")
    return "".join(f" AND {p}" for p in parts)


def _like_prefixes(source: str) -> list[str]:
    """LIKE patterns for what lies under ``source``: a folder's files, a corpus's lines."""
    escaped = source.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    if source.endswith(("/", "#")):
        return [escaped + "%"]
    return [escaped + "/%", escaped + "#%"]


@dataclass(frozen=True)
class TermSelection:
    """Which query terms select the chunks the keyword side ranks.

    ``match`` is a tsquery: an OR of the selecting terms, or (when every term is very
    common) the AND of the rarest two. ``known_df`` holds, per query term, the document
    frequency to use for idf, or None where the query counts it itself (a term OR-ed into
    ``match``: every chunk holding it is ranked, so its matches are its document frequency).
    """

    match: str
    known_df: list[float | None]


def select_terms(conn: psycopg.Connection[Any], terms: Sequence[str], *,
                 budget: int | None = KEYWORD_RANKED_ROWS) -> TermSelection:
    """The selecting query and idf inputs for ``terms``, keeping the chunks ranked to about
    ``budget`` (None: every term selects, however common).

    Ranking every chunk that holds any query word grows with the corpus (a common word is in
    a quarter of it). Terms unlisted in the statistics are rarer than the listed ones and
    always select; listed terms select rarest first while their estimated chunks add up to
    ``budget``; the rest only add to the score of the chunks selected. When every term is
    listed and none fits, the rarest selects alone, unless it is in more than
    :data:`COMMON_QUERY_FACTOR` budgets' worth of chunks: then the chunks holding both of the
    two rarest terms are ranked.
    """
    stats = term_frequencies(conn, terms) if budget is not None else None
    if stats is None or budget is None:
        return TermSelection(tsquery_text(terms), [None] * len(terms))
    listed, floor = stats
    by_rarity = sorted(listed, key=lambda t: (listed[t], t))
    admitted: set[str] = set()
    spent = 0.0
    for term in by_rarity:
        if spent + listed[term] > budget:
            break
        spent += listed[term]
        admitted.add(term)
    if len(listed) == len(terms) and not admitted:
        if listed[by_rarity[0]] > budget * COMMON_QUERY_FACTOR:
            return TermSelection(" & ".join(tsquery_text([t]) for t in by_rarity[:2]),
                                 [listed.get(t, floor) for t in terms])
        admitted.add(by_rarity[0])  # the rarest alone, over the budget
    selecting = [t for t in terms if t not in listed or t in admitted]  # in the query's order
    return TermSelection(tsquery_text(selecting),
                         [None if t in selecting else listed[t] for t in terms])


def keyword_params(conn: psycopg.Connection[Any], terms: Sequence[str], *,
                   budget: int | None = KEYWORD_RANKED_ROWS,
                   sources: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """The keyword side's statement parameters for ``terms``: the selecting query, each
    term's own query and its known document frequency (see :func:`select_terms`); with
    ``budget`` None, every chunk holding a query term is ranked (no cap).

    ``sources`` maps a translated term to the word or phrase of the query whose first sense
    it renders (None for a lesser sense): such a term is weighted by the idf of that
    source's words among ``terms``, not by its own. Its own idf says how rare it is in the
    KB's other language, usually the smaller half, not how much of the question it stands
    for: 年假 ("annual leave") weighed less than "annual" and "days" together, and an English
    line about suppliers' annual spend outranked the leave policy. A lesser sense keeps its
    own idf: "come back", the third gloss of 回滚, would pull every rollback runbook up."""
    chosen = select_terms(conn, terms, budget=budget)
    position = {t: i for i, t in enumerate(terms, start=1)}
    pairs = [(position[t], position[w]) for t, source in (sources or {}).items()
             if t in position and source for w in source.split() if w in position and w != t]
    return {"tsq": chosen.match, "terms": [tsquery_text([t]) for t in terms],
            "tr_of": [p[0] for p in pairs], "tr_src": [p[1] for p in pairs],
            "known_df": chosen.known_df,
            "ranked_cap": KEYWORD_RANKED_CAP if budget is not None else None}  # NULL: no LIMIT


def tsquery_text(terms: Sequence[str]) -> str:
    """An OR tsquery over ``terms`` (each quoted, so no term is read as an operator)."""
    return " | ".join("'" + t.replace("'", "''").replace("\\", "\\\\") + "'" for t in terms)


def build_sql(dim: int, weights: FusionWeights, *, use_keyword: bool, where: str,
              several: bool = False) -> str:
    """The fused statement. ``dim`` is inlined: the partial HNSW index needs a literal.
    ``several``: the KBs ``%(kb_ids)s`` are searched as one collection (their active
    generations, idf over all their passages) instead of the KB ``%(kb_id)s``."""
    if not isinstance(dim, int) or dim <= 0:
        raise ValueError(f"invalid embedding dimension {dim!r}")
    kbs = ("c.kb_id = ANY(%(kb_ids)s) AND (c.kb_id, c.generation) IN "
           "(SELECT id, active_generation FROM knowledge_bases WHERE id = ANY(%(kb_ids)s))"
           if several else
           "c.kb_id = %(kb_id)s AND c.generation = "
           "(SELECT active_generation FROM knowledge_bases WHERE id = %(kb_id)s)")
    scope = " " + kbs + " AND c.acl && %(principals)s::text[]" + where
    size_of = "k.id = ANY(%(kb_ids)s)" if several else "k.id = %(kb_id)s"
    ctes: list[str] = []
    use_dense = weights.dense > 0
    if use_dense:
        ctes.append(f"""
        dense AS (
            SELECT id, row_number() OVER (ORDER BY dist, id) AS r FROM (
                SELECT c.id, c.embedding::vector({dim}) <=> %(vec)s::vector({dim}) AS dist
                FROM chunks c
                WHERE c.dim = {dim} AND {scope}
                ORDER BY dist
                LIMIT %(n)s
            ) d
        )""")
    if use_keyword:
        # Keyword ranking: a BM25-like sum over query terms of idf(term) * ts_rank(term) with
        # length normalisation. Plain ts_rank_cd over an OR query has no idf, so frequent words
        # outvote the rare ones that identify the document (hotpotqa keyword Recall@5: 0.68
        # with ts_rank_cd, 0.98 with this). A selecting term's document frequency comes from
        # the match set itself, within the KB and filters; a term that only scores uses the
        # statistics' estimate (known_df), so no statistics table is needed.
        ctes.append(f"""
        kw_q AS MATERIALIZED (
            -- parsed once: inlined, to_tsquery would run again for every (chunk, term) pair
            SELECT to_tsquery('simple', x) AS q, i
            FROM unnest(%(terms)s::text[]) WITH ORDINALITY u(x, i)
        ),
        kw_doc AS (
            -- one index scan for the selecting query (see select_terms), capped
            SELECT c.id, c.tsv FROM chunks c
            WHERE c.tsv @@ to_tsquery('simple', %(tsq)s) AND {scope}
            LIMIT %(ranked_cap)s
        ),
        kw_term AS (
            -- each chunk's terms ranked from its row (OFFSET 0 keeps the planner from
            -- turning this into one index and heap scan per term)
            SELECT d.id, t.i, t.r
            FROM kw_doc d
            CROSS JOIN LATERAL (SELECT q.i, ts_rank(d.tsv, q.q, 1) AS r FROM kw_q q
                                WHERE d.tsv @@ q.q OFFSET 0) t
        ),
        kw_df AS (
            SELECT k.i, coalesce(k.known, m.df, 0) AS df
            FROM unnest(%(known_df)s::float8[]) WITH ORDINALITY k(known, i)
            LEFT JOIN (SELECT i, count(*) AS df FROM kw_term GROUP BY i) m USING (i)
        ),
        kw_n AS (
            -- the active generations' size for idf, kept by triggers on chunks
            SELECT greatest(coalesce((
                SELECT sum(g.chunk_count) FROM knowledge_bases k
                JOIN generations g ON g.kb_id = k.id AND g.generation = k.active_generation
                WHERE {size_of}), 1), 1)::float8 AS n
        ),
        kw_idf AS (
            SELECT d.i, ln(1 + (greatest(kw_n.n - d.df, 0) + 0.5) / (d.df + 0.5)) AS idf
            FROM kw_df d CROSS JOIN kw_n
        ),
        kw_w AS (
            -- a translation weighs what the query terms it translates weigh (store.search
            -- .keyword_params), its own idf when none of them is a term
            SELECT x.i, coalesce(s.idf, x.idf) AS w
            FROM kw_idf x LEFT JOIN (
                SELECT p.t AS i, sum(y.idf) AS idf
                FROM unnest(%(tr_of)s::int[], %(tr_src)s::int[]) p(t, s)
                JOIN kw_idf y ON y.i = p.s GROUP BY p.t
            ) s USING (i)
        ),
        kw AS (
            SELECT id, row_number() OVER (ORDER BY score DESC, id) AS r FROM (
                SELECT kt.id, sum(kt.r * w.w) AS score
                FROM kw_term kt JOIN kw_w w USING (i)
                GROUP BY kt.id
                ORDER BY score DESC, kt.id
                LIMIT %(n)s
            ) k
        )""")
    if use_dense and use_keyword:
        fused = """
        fused AS (
            SELECT coalesce(d.id, k.id) AS id, d.r AS dense_rank, k.r AS keyword_rank,
                   coalesce(%(wd)s::float8 / (%(rrf_k)s + d.r), 0)
                   + coalesce(%(wk)s::float8 / (%(rrf_k)s + k.r), 0) AS score
            FROM dense d FULL OUTER JOIN kw k ON d.id = k.id
        )"""
    elif use_dense:
        fused = """
        fused AS (
            SELECT id, r AS dense_rank, NULL::bigint AS keyword_rank,
                   %(wd)s::float8 / (%(rrf_k)s + r) AS score FROM dense
        )"""
    else:
        fused = """
        fused AS (
            SELECT id, NULL::bigint AS dense_rank, r AS keyword_rank,
                   %(wk)s::float8 / (%(rrf_k)s + r) AS score FROM kw
        )"""
    ctes.append(fused)
    return ("WITH" + ",".join(ctes) + """
        SELECT f.id, doc.doc_key, doc.title, c.source, c.doc_type, c.heading_path, c.text,
               f.score, f.dense_rank, f.keyword_rank, c.kb_id,
               coalesce(doc.metadata->>'date', '')
        FROM (SELECT * FROM fused ORDER BY score DESC, id LIMIT %(limit)s) f
        -- cut to the top rows first: only they fetch (and detoast) their text and document
        JOIN chunks c ON c.id = f.id
        JOIN documents doc ON doc.id = c.document_id
        ORDER BY f.score DESC, f.id
        LIMIT %(limit)s""")


def search(pool: ConnectionPool, kb_name: str | Sequence[str], query: str, *,
           embedder: Embedder, k: int = 10, filters: SearchFilters | None = None,
           principals: Sequence[str] = (PUBLIC,), reranker: Reranker | None = None,
           candidates: int = DEFAULT_CANDIDATES, fusion: FusionMode = "auto",
           translator: Translator | None = None) -> list[Hit]:
    """The ``k`` best chunks of KB ``kb_name`` for ``query`` that ``principals`` may read;
    given several names, of those KBs searched as one collection (each hit names its KB):
    the same documents rank alike whether they sit in one KB or are spread over several.

    Dense and keyword top-``candidates`` are fused by (weighted) RRF; with ``reranker`` the
    fused top-``candidates`` are re-scored by it; with ``translator`` the keyword leg also
    gets the query terms' translations into the KB's other language. Raises
    KnowledgeBaseNotFoundError and ModelMismatchError (never an empty result for a wrong model).
    """
    if k <= 0:
        return []
    candidates = max(candidates, k)
    started = time.perf_counter()
    terms = query_terms(query)[:MAX_QUERY_TERMS]
    weights = fusion_weights(fusion, query, multilingual=embedder.multilingual)
    use_keyword = weights.keyword > 0 and bool(terms)
    if weights.dense == 0 and not use_keyword:
        return []  # keyword-only mode and nothing but stopwords in the query
    names = [kb_name] if isinstance(kb_name, str) else list(dict.fromkeys(kb_name))
    with pool.connection() as conn:
        kbs = [get_kb(conn, name) for name in names]
        for kb in kbs:
            check_model(kb, embedder)
        kb = kbs[0]
        params: dict[str, Any] = {
            "kb_id": kb.id, "kb_ids": [x.id for x in kbs],
            "principals": list(principals) or [PUBLIC], "n": candidates,
            "wd": weights.dense, "wk": weights.keyword, "rrf_k": RRF_K,
            "limit": candidates if reranker is not None else k,
        }
        if weights.dense > 0:
            params["vec"] = embedder.embed_query(query)
        sources: dict[str, str | None] = {}
        if use_keyword and translator is not None:
            sources = translator.translate_from(conn, params["kb_ids"], query, terms)
            terms = terms + list(sources)
        if use_keyword:
            # Under a Chinese query the keyword side ranks both languages already (the dense
            # vote is a tie-breaker, store.fusion); weighting its English translations by
            # their Chinese sources lowered Chinese questions' gold documents (6 of 60).
            params.update(keyword_params(conn, terms,
                                         sources=None if is_chinese(query) else sources))
        embedded = time.perf_counter()
        sql = build_sql(kb.embed_dim, weights, use_keyword=use_keyword,
                        where=_filter_sql(filters, params), several=len(kbs) > 1)
        with conn.transaction():
            # Filters apply after the HNSW scan; iterative scans keep scanning until enough
            # rows pass them, so a filtered search still fills its candidate list.
            conn.execute(
                "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                "set_config('hnsw.ef_search', %s, true)",
                [str(max(_EF_SEARCH_MIN, candidates))],
            )
            # Never a prepared statement: a generic plan cannot see how selective this
            # query's terms are and ranks far more rows than a custom plan (seconds at 100k).
            rows = conn.execute(sql, params, prepare=False).fetchall()
    hits = [
        Hit(chunk_id=r[0], doc_id=r[1], title=r[2], source=r[3], doc_type=r[4],
            heading_path=tuple(r[5] or ()), text=r[6], score=float(r[7]),
            dense_rank=r[8], keyword_rank=r[9],
            kb=next(x.name for x in kbs if x.id == r[10]) if len(kbs) > 1 else "",
            date=r[11])
        for r in rows
    ]
    if reranker is not None and hits:
        hits = rerank_hits(reranker, query, hits)[:k]
    log.debug("search", kb="+".join(names), k=k, hits=len(hits), terms=len(terms),
              dense_weight=weights.dense, keyword_weight=weights.keyword,
              reranked=reranker is not None,
              sql_ms=round((time.perf_counter() - embedded) * 1000, 2),
              total_ms=round((time.perf_counter() - started) * 1000, 2))
    return hits


def rerank_hits(reranker: Reranker, query: str, hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` re-ordered by the reranker's scores (which replace the fused scores)."""
    texts = [f"{h.title}\n{h.text}" if h.title else h.text for h in hits]
    scores = reranker.score(query, texts)
    if len(scores) != len(hits):
        raise ValueError(f"reranker {reranker.name} returned {len(scores)} scores for "
                         f"{len(hits)} texts")
    rescored = [_with_score(h, float(s)) for h, s in zip(hits, scores, strict=True)]
    return sorted(rescored, key=lambda h: (-h.score, h.chunk_id))


def _with_score(hit: Hit, score: float) -> Hit:
    from dataclasses import replace

    return replace(hit, score=score)


__all__ = ["DEFAULT_CANDIDATES", "build_sql", "kb_facets", "rerank_hits", "search",
           "tsquery_text"]


def chunk_texts(pool: ConnectionPool, chunk_ids: Sequence[int]) -> dict[int, str]:
    """The text of each of ``chunk_ids`` that still exists (for scoring cited passages)."""
    if not chunk_ids:
        return {}
    with pool.connection() as conn:
        rows = conn.execute("SELECT id, text FROM chunks WHERE id = ANY(%s)",
                            [list(chunk_ids)]).fetchall()
    return {int(r[0]): str(r[1]) for r in rows}
