"""Ingest throughput against the embedder's own throughput on the same texts, in one run.

    python -m bench.ingest_throughput                 # 500 hotpotqa documents
    python -m bench.ingest_throughput --docs 300 --repeat 2

The embedder alone embeds exactly the chunk texts ingestion embeds (same reader, chunker
and batch size); then the same corpus is ingested into a fresh KB. The ratio is chunks per
second of ingestion over chunks per second of the embedder (1.0 = ingestion costs nothing
beyond embedding). With ``--repeat`` the embedder and ingestion alternate and the ratio of
the medians is reported, which evens out a machine shared with other work.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import (
    add_database_args,
    admin_url,
    drop_database,
    fresh_database,
    print_table,
    write_results,
)
from bench.corpus import DEFAULT_DATASET, batches, embedding_inputs, write_corpus
from bot.logging_setup import configure_logging
from store.db import open_pool
from store.embedder import Embedder
from store.embedding import load_embedder
from store.ingest import ingest_paths
from store.kb import get_or_create_kb


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ingest_throughput",
                                     description=(__doc__ or "").split("\n\n")[0])
    add_database_args(parser)
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--source", type=Path, default=DEFAULT_DATASET,
                        help="a .jsonl corpus to take documents from (generated text if absent)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    configure_logging("WARNING")

    embedder = load_embedder()
    admin = admin_url(args.database_url)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        origin = write_corpus(corpus, args.docs, args.source)
        texts = embedding_inputs(corpus)
        embedder.embed_documents(texts[:8])  # load weights and warm up outside the timings
        embed_s: list[float] = []
        ingest_s: list[float] = []
        failed = chunks = 0
        for run in range(args.repeat):
            embed_s.append(time_embedder(embedder, texts))
            seconds, chunks, failed = time_ingest(admin, corpus, embedder, run)
            ingest_s.append(seconds)
    embed_rate = len(texts) / statistics.median(embed_s)
    ingest_rate = chunks / statistics.median(ingest_s)
    result = {
        "corpus": origin, "documents": args.docs, "chunks": len(texts),
        "ingested_chunks": chunks, "failed_documents": failed, "model": embedder.name,
        "embedder_seconds": [round(s, 2) for s in embed_s],
        "ingest_seconds": [round(s, 2) for s in ingest_s],
        "embedder_chunks_per_s": round(embed_rate, 1),
        "ingest_chunks_per_s": round(ingest_rate, 1),
        "ratio": round(ingest_rate / embed_rate, 3),
    }
    print_table(["docs", "chunks", "embedder s", "ingest s", "embedder ch/s", "ingest ch/s",
                 "ratio"],
                [[args.docs, len(texts), statistics.median(embed_s), statistics.median(ingest_s),
                  result["embedder_chunks_per_s"], result["ingest_chunks_per_s"],
                  result["ratio"]]])
    print(f"results: {write_results('ingest_throughput', result)}")
    return 0


def time_embedder(embedder: Embedder, texts: list[str]) -> float:
    started = time.perf_counter()
    for batch in batches(texts):
        embedder.embed_documents(batch)
    return time.perf_counter() - started


def time_ingest(admin: str, corpus: Path, embedder: Embedder, run: int) -> tuple[float, int, int]:
    """Seconds to ingest ``corpus`` into a fresh KB (fresh database), chunks, failures."""
    url = fresh_database(admin, f"ingest_{run}")
    pool = open_pool(url, max_size=2)
    try:
        with pool.connection() as conn:  # the KB and its index exist before the clock starts
            get_or_create_kb(conn, "bench", embedder)
        started = time.perf_counter()
        report = ingest_paths(pool, "bench", [corpus], embedder=embedder)
        seconds = time.perf_counter() - started
    finally:
        pool.close()
        drop_database(admin, url)
    return seconds, report.chunks, report.failed


if __name__ == "__main__":
    raise SystemExit(main())
