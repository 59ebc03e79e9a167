"""Peak memory (ru_maxrss) of ingestion and of search, each in its own process.

    python -m bench.memory                  # 500 hotpotqa documents, 100 searches

Three child processes: one that only loads the embedder (the floor every command pays),
one that ingests the corpus into a fresh KB, one that runs searches against it (query
embedding included). The PostgreSQL server's own memory is not counted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    add_database_args,
    admin_url,
    bench_pool,
    drop_database,
    fresh_database,
    peak_rss_mb,
    print_table,
    write_results,
)
from bench.corpus import DEFAULT_DATASET, write_corpus

KB = "bench"
_QUESTIONS = DEFAULT_DATASET.parent / "questions.jsonl"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory",
                                     description=(__doc__ or "").split("\n\n")[0])
    add_database_args(parser)
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--searches", type=int, default=100)
    parser.add_argument("--child", choices=["load", "ingest", "search"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args)))
        return 0

    admin = admin_url(args.database_url)
    url = fresh_database(admin, "memory")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Path(tmp) / "corpus.jsonl"
            origin = write_corpus(corpus, args.docs)
            runs = {name: _spawn(name, url, corpus, args.searches)
                    for name in ("load", "ingest", "search")}
    finally:
        drop_database(admin, url)
    print_table(["process", "peak RSS MB", "work"],
                [[name, r["peak_rss_mb"], r["work"]] for name, r in runs.items()])
    path = write_results("memory", {"corpus": origin, "documents": args.docs, "runs": runs})
    print(f"results: {path}")
    return 0


def _spawn(name: str, url: str, corpus: Path, searches: int) -> dict[str, Any]:
    # the benchmark's own interpreter and module: no untrusted input
    proc = subprocess.run(  # noqa: S603
        [sys.executable, "-m", "bench.memory", "--child", name, "--url", url,
         "--corpus", str(corpus), "--searches", str(searches)],
        capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{name} child failed: {proc.stderr[-2000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _child(args: argparse.Namespace) -> dict[str, Any]:
    from bot.logging_setup import configure_logging  # the child's own imports
    from store.embedding import load_embedder

    configure_logging("WARNING")
    embedder = load_embedder()
    embedder.embed_query("warm up")
    if args.child == "load":
        return {"peak_rss_mb": round(peak_rss_mb(), 1), "work": "load the embedder"}
    pool = bench_pool(args.url)  # no generic-plan trap in the searches (see bench_pool)
    try:
        if args.child == "ingest":
            from store.ingest import ingest_paths

            report = ingest_paths(pool, KB, [args.corpus], embedder=embedder)
            work = f"ingest {report.new} documents, {report.chunks} chunks"
        else:
            from store.search import search

            queries = _queries(args.corpus, args.searches)
            hits = sum(len(search(pool, KB, q, embedder=embedder, k=10)) for q in queries)
            work = f"{len(queries)} searches, {hits} hits"
    finally:
        pool.close()
    return {"peak_rss_mb": round(peak_rss_mb(), 1), "work": work}


def _queries(corpus: Path, count: int) -> list[str]:
    """Dataset questions when present, else the corpus titles."""
    source = _QUESTIONS if _QUESTIONS.exists() else corpus
    key = "question" if source == _QUESTIONS else "title"
    out: list[str] = []
    with source.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                out.append(str(json.loads(line)[key]))
    return (out * (count // max(len(out), 1) + 1))[:count]


if __name__ == "__main__":
    raise SystemExit(main())
