"""Search latency (p50/p95 of ``store.search.search``, query embedding excluded) and HNSW
recall@10 against exact search, on synthetic chunks of 384 dimensions.

    python -m bench.search_latency                       # 10k and 100k chunks
    python -m bench.search_latency --sizes 10000,100000,1000000 --maintenance-work-mem 3GB

Each size gets a fresh database (so one size's index never serves another's queries).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import psycopg
from psycopg.conninfo import make_conninfo

from bench.common import (
    add_database_args,
    admin_url,
    bench_pool,
    drop_database,
    fresh_database,
    percentile,
    print_table,
    write_results,
)
from bench.synthetic import (
    CLUSTERED,
    CachedQueryEmbedder,
    ClusterShape,
    QuerySample,
    create_kb,
    load_chunks,
    model_name,
    replay_samples,
)
from bot.logging_setup import configure_logging
from store.db import ensure_vector_index
from store.fusion import FusionMode
from store.search import DEFAULT_CANDIDATES, search, tsquery_text
from store.tokenize import query_terms

KB = "bench"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_latency",
                                     description=__doc__.split("\n\n")[0])
    add_database_args(parser)
    parser.add_argument("--sizes", default="10000,100000",
                        help="comma-separated chunk counts (default 10000,100000)")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200, help="timed searches per mode")
    parser.add_argument("--recall-queries", type=int, default=50)
    parser.add_argument("--query-terms", type=int, default=8,
                        help="keyword terms per query (default 8; questions in the shared "
                        "datasets have 5-10 after stopwords)")
    parser.add_argument("--ef", default="100,400",
                        help="hnsw.ef_search values for recall (search() itself uses 100)")
    parser.add_argument("--vectors", choices=["random", "clustered"], default="random",
                        help="uniform random unit vectors, or clustered ones fitted to real "
                        "embeddings (bench.synthetic.CLUSTERED; python -m bench.vector_profile)")
    parser.add_argument("--modes", default="auto,dense,keyword",
                        help="fusion modes to time (auto = the default hybrid search)")
    parser.add_argument("--maintenance-work-mem", default="1GB",
                        help="for the HNSW build; the graph should fit (1M x 384: about 2.5GB)")
    parser.add_argument("--build-workers", type=int, default=1,
                        help="max_parallel_maintenance_workers for the HNSW build")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark databases")
    parser.add_argument("--reuse", action="store_true",
                        help="search a database kept by an earlier --keep run of the same "
                        "size (its queries are replayed); implies --keep")
    parser.add_argument("--auto-prepare", action="store_true",
                        help="let psycopg prepare statements (its default; see bench_pool)")
    args = parser.parse_args(argv)
    configure_logging("WARNING")

    admin = admin_url(args.database_url)
    modes = [cast(FusionMode, m.strip()) for m in args.modes.split(",")]
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        url = _kept_database(admin, size) if args.reuse else None
        reused = url is not None
        url = url or fresh_database(admin, f"search_{size}")
        try:
            results.append(run_size(url, size, args, modes, reused=reused))
        finally:
            if not (args.keep or args.reuse):
                drop_database(admin, url)
        _print(results)
    path = write_results("search_latency", {"dim": args.dim, "vectors": args.vectors,
                                            "results": results})
    print(f"results: {path}")
    return 0


def _kept_database(admin: str, size: int) -> str | None:
    """The URL of a kept database with ``size`` chunks in KB "bench" and its index, or None."""
    url = make_conninfo(admin, dbname=f"ragbot_bench_search_{size}")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*), (SELECT count(*) FROM pg_indexes WHERE tablename = 'chunks' "
                "AND indexdef LIKE '%%hnsw%%') FROM chunks c JOIN knowledge_bases k "
                "ON k.id = c.kb_id WHERE k.name = %s", [KB]).fetchone()
    except psycopg.Error:
        return None
    return url if row and row[0] == size and row[1] else None


def run_size(url: str, size: int, args: argparse.Namespace,
             modes: Sequence[FusionMode], *, reused: bool = False) -> dict[str, Any]:
    # one connection, so the backend whose CPU time is read is the one that searches
    pool = bench_pool(url, auto_prepare=args.auto_prepare, max_size=1)
    try:
        if reused:
            return _measure(pool, size, args, modes, {"chunks": size, "reused": True,
                                                      "load_s": 0.0, "index_build_s": 0.0})
        with pool.connection() as conn:
            kb_id = create_kb(conn, KB, args.dim)
            t0 = time.perf_counter()
            samples = load_chunks(conn, kb_id, size, args.dim,
                                  queries=max(args.queries, args.recall_queries),
                                  query_terms=args.query_terms, shape=_shape(args))
            load_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            conn.execute("SELECT set_config('maintenance_work_mem', %s, false), "
                         "set_config('max_parallel_maintenance_workers', %s, false)",
                         [args.maintenance_work_mem, str(args.build_workers)])
            ensure_vector_index(conn, args.dim)
            index_s = time.perf_counter() - t0
            conn.execute("VACUUM ANALYZE chunks")
            conn.execute("VACUUM ANALYZE documents")
        return _measure(pool, size, args, modes, {"chunks": size, "load_s": round(load_s, 1),
                                                  "index_build_s": round(index_s, 1)},
                        samples=samples)
    finally:
        pool.close()


def _shape(args: argparse.Namespace) -> ClusterShape | None:
    return CLUSTERED if args.vectors == "clustered" else None


def _measure(pool: Any, size: int, args: argparse.Namespace, modes: Sequence[FusionMode],
             row: dict[str, Any], *, samples: Sequence[QuerySample] | None = None
             ) -> dict[str, Any]:
    """Latency per mode, the keyword match share and HNSW recall on a loaded database."""
    if samples is None:
        samples = replay_samples(size, args.dim, queries=max(args.queries, args.recall_queries),
                                 query_terms=args.query_terms, shape=_shape(args))
    with pool.connection() as conn:
        row_kb = conn.execute("SELECT id FROM knowledge_bases WHERE name = %s", [KB]).fetchone()
        # the buffer cache decides whether HNSW index and heap pages stay resident
        buffers = conn.execute("SHOW shared_buffers").fetchone()
    assert row_kb is not None
    row["shared_buffers"] = buffers[0] if buffers else None
    kb_id = int(row_kb[0])
    embedder = CachedQueryEmbedder(model_name(args.dim), args.dim, samples)
    for mode in modes:
        row[mode] = _latency(pool, embedder, samples[:args.queries], mode)
    row["keyword_match_fraction"] = _match_fraction(pool, size, samples[:20])
    for ef in (int(e) for e in args.ef.split(",")):
        row[f"recall_at_10_ef{ef}"] = _recall(pool, kb_id, args.dim,
                                              samples[:args.recall_queries], ef)
    return row


def _latency(pool: Any, embedder: CachedQueryEmbedder, samples: Sequence[QuerySample],
             mode: FusionMode) -> dict[str, float | None]:
    """Wall-clock percentiles, and CPU time (this process + the server backend) per query.

    On a machine shared with other work, wall time includes waiting for a core; CPU time
    is what one query costs, i.e. about its latency on an idle machine (one query runs on
    one core: no parallel workers for these plans).
    """
    for s in samples[:10]:  # warm the cache and the connection
        search(pool, KB, s.text, embedder=embedder, k=10, fusion=mode)
    with pool.connection() as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
    backend = _BackendClock(int(row[0])) if row else None
    times: list[float] = []
    cpu: list[float] = []
    empty = 0
    for s in samples:
        server0 = backend.cpu_ms() if backend else None
        client0 = time.process_time()
        t0 = time.perf_counter()
        hits = search(pool, KB, s.text, embedder=embedder, k=10, fusion=mode)
        times.append((time.perf_counter() - t0) * 1000)
        server1 = backend.cpu_ms() if backend else None
        if server0 is not None and server1 is not None:
            cpu.append(server1 - server0 + (time.process_time() - client0) * 1000)
        empty += not hits
    return {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2),
            "mean_ms": round(float(np.mean(times)), 2), "queries": len(times),
            "cpu_p50_ms": round(percentile(cpu, 50), 2) if cpu else None,
            "cpu_p95_ms": round(percentile(cpu, 95), 2) if cpu else None,
            "empty_results": empty}


class _BackendClock:
    """CPU time of a local PostgreSQL backend, from /proc (None when not readable)."""

    def __init__(self, pid: int) -> None:
        self.path = Path(f"/proc/{pid}/schedstat")

    def cpu_ms(self) -> float | None:
        try:
            return int(self.path.read_text().split()[0]) / 1e6  # nanoseconds on a CPU
        except (OSError, ValueError, IndexError):
            return None


def _match_fraction(pool: Any, size: int, samples: Sequence[QuerySample]) -> float:
    """Mean share of chunks a query's keyword side has to rank (what its cost grows with)."""
    counts = []
    with pool.connection() as conn:
        for s in samples:
            row = conn.execute("SELECT count(*) FROM chunks WHERE tsv @@ to_tsquery('simple', %s)",
                               [tsquery_text(query_terms(s.text))]).fetchone()
            counts.append(row[0] if row else 0)
    return round(float(np.mean(counts)) / size, 4) if counts else 0.0


def _dense_ids(conn: psycopg.Connection, kb_id: int, dim: int,
               vector: npt.NDArray[np.float32], *, exact: bool, ef: int = 100) -> list[int]:
    """Top 10 of the dense side, as ``store.search`` runs it (or exactly, without the index)."""
    with conn.transaction():
        if exact:
            conn.execute("SET LOCAL enable_indexscan = off")
            conn.execute("SET LOCAL enable_bitmapscan = off")
        else:
            conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                         "set_config('hnsw.ef_search', %s, true)", [str(ef)])
        rows = conn.execute(
            f"SELECT id FROM (SELECT c.id, c.embedding::vector({dim}) <=> %(v)s::vector({dim}) "
            f"AS dist FROM chunks c WHERE c.dim = {dim} AND c.kb_id = %(kb)s AND c.generation = "
            "(SELECT active_generation FROM knowledge_bases WHERE id = %(kb)s) "
            "AND c.acl && ARRAY['public'] ORDER BY dist LIMIT %(n)s) d ORDER BY dist, id LIMIT 10",
            {"v": vector, "kb": kb_id, "n": DEFAULT_CANDIDATES},
            # never a cached plan: the exact run must not reuse the index plan (or vice versa)
            prepare=False).fetchall()
    return [r[0] for r in rows]


def _recall(pool: Any, kb_id: int, dim: int, samples: Sequence[QuerySample], ef: int) -> float:
    found = total = 0
    with pool.connection() as conn:
        for s in samples:
            approx = set(_dense_ids(conn, kb_id, dim, s.vector, exact=False, ef=ef))
            exact = _dense_ids(conn, kb_id, dim, s.vector, exact=True)
            found += len(approx.intersection(exact))
            total += len(exact)
    return round(found / total, 4) if total else 0.0


def _print(results: Sequence[dict[str, Any]]) -> None:
    headers = ["chunks", "load s", "index s"]
    modes = [m for m in ("auto", "dense", "keyword") if m in results[0]]
    for m in modes:
        headers += [f"{m} p50 ms", f"{m} p95 ms", f"{m} cpu p50"]
    headers.append("kw match")
    efs = [k.removeprefix("recall_at_10_ef") for k in results[0] if k.startswith("recall_at_10")]
    headers += [f"recall@10 ef{e}" for e in efs]
    rows = []
    for r in results:
        row: list[Any] = [r["chunks"], r["load_s"], r["index_build_s"]]
        for m in modes:
            row += [r[m]["p50_ms"], r[m]["p95_ms"], r[m]["cpu_p50_ms"]]
        row.append(r["keyword_match_fraction"])
        row += [r[f"recall_at_10_ef{e}"] for e in efs]
        rows.append(row)
    print_table(headers, rows)


if __name__ == "__main__":
    raise SystemExit(main())
