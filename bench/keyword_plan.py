"""The keyword leg of ``store.search`` on a database kept by ``bench.search_latency --keep``:
EXPLAIN (ANALYZE, BUFFERS) timings, how many chunks it ranks, and how its top 10 compares
with an exhaustive ranking (every query term selecting, no cap).

    python -m bench.search_latency --sizes 1000000 --vectors clustered --keep ...   # once
    python -m bench.keyword_plan --size 1000000 --vectors clustered --queries 200
    python -m bench.keyword_plan --size 1000000 --vectors clustered --queries 200 --show 3

``--queries`` must be the loading run's ``max(--queries, --recall-queries)``: the query
samples are replayed from the generator's seed, and their count is part of the draw.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg

from bench.common import add_database_args, admin_url, percentile, print_table, write_results
from bench.search_latency import KB, _kept_database
from bench.synthetic import CLUSTERED, replay_samples
from bot.logging_setup import configure_logging
from store.fusion import RRF_K, FusionWeights
from store.search import (
    DEFAULT_CANDIDATES,
    KEYWORD_RANKED_ROWS,
    MAX_QUERY_TERMS,
    build_sql,
    keyword_params,
)
from store.tokenize import query_terms
from store.types import PUBLIC


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.keyword_plan",
                                     description=__doc__.split("\n\n")[0])
    add_database_args(parser)
    parser.add_argument("--size", type=int, default=1_000_000, help="chunks of the kept database")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--vectors", choices=["random", "clustered"], default="random")
    parser.add_argument("--queries", type=int, default=200,
                        help="the loading run's max(--queries, --recall-queries)")
    parser.add_argument("--query-terms", type=int, default=8)
    parser.add_argument("--measure", type=int, default=50, help="queries measured (default 50)")
    parser.add_argument("--show", type=int, default=None,
                        help="print the full plan of this query (0-based) and stop")
    args = parser.parse_args(argv)
    configure_logging("WARNING")
    url = _kept_database(admin_url(args.database_url), args.size)
    if url is None:
        parser.error(f"no kept database with {args.size} chunks: run bench.search_latency "
                     f"--sizes {args.size} --keep first")
    samples = replay_samples(args.size, args.dim, queries=args.queries,
                             query_terms=args.query_terms,
                             shape=CLUSTERED if args.vectors == "clustered" else None)
    with psycopg.connect(url, autocommit=True, prepare_threshold=None) as conn:
        kb_id = _kb_id(conn)
        if args.show is not None:
            text = samples[args.show].text
            sql, params = statement(conn, kb_id, args.dim, text)
            print(f"query: {text}\nselecting: {params['tsq']}\n")
            for (line,) in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params).fetchall():
                print(line)
            return 0
        row = measure(conn, kb_id, args.dim, [s.text for s in samples[:args.measure]])
    row["chunks"] = args.size
    print_table(list(row), [list(row.values())])
    path = write_results("keyword_plan", {"vectors": args.vectors, "results": [row]})
    print(f"results: {path}")
    return 0


def _kb_id(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT id FROM knowledge_bases WHERE name = %s", [KB]).fetchone()
    assert row is not None
    return int(row[0])


def statement(conn: psycopg.Connection[Any], kb_id: int, dim: int, text: str, *,
              exhaustive: bool = False, budget: int | None = KEYWORD_RANKED_ROWS
              ) -> tuple[str, dict[str, Any]]:
    """The keyword-only statement ``store.search`` runs for ``text`` (or, ``exhaustive``,
    the same ranking over every chunk that holds any query term)."""
    terms = query_terms(text)[:MAX_QUERY_TERMS]
    params: dict[str, Any] = {"kb_id": kb_id, "principals": [PUBLIC], "n": DEFAULT_CANDIDATES,
                              "wd": 0.0, "wk": 1.0, "rrf_k": RRF_K, "limit": 10}
    params.update(keyword_params(conn, terms, budget=None if exhaustive else budget))
    return build_sql(dim, FusionWeights(0.0, 1.0), use_keyword=True, where=""), params


def measure(conn: psycopg.Connection[Any], kb_id: int, dim: int, texts: Sequence[str]
            ) -> dict[str, Any]:
    """Server execution time, chunks ranked and top-10 agreement with the exhaustive ranking."""
    times: list[float] = []
    exhaustive_times: list[float] = []
    ranked: list[int] = []
    overlap: list[float] = []
    same_first = 0
    for text in texts:
        sql, params = statement(conn, kb_id, dim, text)
        times.append(_execution_ms(conn, sql, params))
        ranked.append(_match_count(conn, params))
        got = [r[0] for r in conn.execute(sql, params).fetchall()]
        full_sql, full_params = statement(conn, kb_id, dim, text, exhaustive=True)
        exhaustive_times.append(_execution_ms(conn, full_sql, full_params))
        want = [r[0] for r in conn.execute(full_sql, full_params).fetchall()]
        overlap.append(len(set(got) & set(want)) / max(len(want), 1))
        same_first += bool(got and want and got[0] == want[0])
    return {"queries": len(texts),
            "exec p50 ms": round(percentile(times, 50), 2),
            "exec p95 ms": round(percentile(times, 95), 2),
            "ranked p50": int(percentile(ranked, 50)), "ranked p95": int(percentile(ranked, 95)),
            "exhaustive p50 ms": round(percentile(exhaustive_times, 50), 2),
            "top10 overlap": round(float(np.mean(overlap)), 4),
            "same top1": round(same_first / max(len(texts), 1), 4)}


def _execution_ms(conn: psycopg.Connection[Any], sql: str, params: dict[str, Any]) -> float:
    t0 = time.perf_counter()
    plan = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params).fetchone()
    if plan is None:
        return (time.perf_counter() - t0) * 1000
    return float(plan[0][0]["Execution Time"])


def _match_count(conn: psycopg.Connection[Any], params: dict[str, Any]) -> int:
    """Chunks the selecting terms match (what the leg ranks, before any cap)."""
    row = conn.execute("SELECT count(*) FROM chunks WHERE tsv @@ to_tsquery('simple', %s)",
                       [params["tsq"]]).fetchone()
    return int(row[0]) if row else 0


if __name__ == "__main__":
    raise SystemExit(main())
