"""Offline answer latency: p50/p95 of ``Agent.ask`` on the sample knowledge base, after
warm-up (targets: p50 ≤ 300 ms, p95 ≤ 1 s per question).

    python -m bench.answer_latency                 # samples/kb, 3 passes over the questions
    python -m bench.answer_latency --passes 5 --database-url postgresql://...

Each run ingests the KB into a fresh database ``ragbot_bench_answer_latency``. Every question
is a new thread except the follow-ups, which continue the previous question's thread. The
timed passes run without the answer cache; then the questions that open a thread are asked
again with it (one pass fills it, the timed passes hit it): cached ÷ uncached p50 of those
questions (target: cached p50 ≤ 20 ms).
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    add_database_args,
    admin_url,
    drop_database,
    fresh_database,
    percentile,
    print_table,
    write_results,
)
from bot.logging_setup import configure_logging

KB = "bench"
SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "kb"

# (question, continues the previous question's thread)
QUESTIONS: list[tuple[str, bool]] = [
    ("Redis内存满了怎么办", False),
    ("如果用了持久化还不行呢", True),
    ("服务器频繁告警时该参考哪个应急预案？预案里的回滚操作是否需要二次审批？", False),
    ("What was the overall return rate in Q3 2026?", False),
    ("Which product line had the highest return rate?", True),
    ("How do I set up the VPN?", False),
    ("年假有多少天？", False),
    ("How do I reimburse a business trip?", False),
    ("MySQL慢查询怎么排查？", False),
    ("你好", False),
    ("火星基地的氧气配额是多少？", False),
    ("What should I do if I lose my laptop?", False),
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.answer_latency",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_database_args(parser)
    parser.add_argument("--kb-path", type=Path, default=SAMPLES,
                        help="documents to answer from (default samples/kb)")
    parser.add_argument("--passes", type=int, default=3, help="timed passes over the questions")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    args = parser.parse_args(argv)
    configure_logging("WARNING")

    from agent.api import AgentConfig, Question, build_agent
    from store.db import open_pool
    from store.embedding import load_embedder
    from store.ingest import ingest_paths

    admin = admin_url(args.database_url)
    url = fresh_database(admin, "answer_latency")
    pool = open_pool(url)
    embedder = load_embedder()
    report = ingest_paths(pool, KB, [args.kb_path], embedder=embedder)
    print(f"ingested {args.kb_path}: {report.summary()}")
    agent = build_agent(pool, embedder, config=AgentConfig(answer_cache=False))
    cached_agent = build_agent(pool, embedder)

    def one_pass(agent: Any, questions: list[tuple[str, bool]],
                 ) -> list[tuple[str, float, str, int]]:
        out = []
        thread = ""
        for text, follow in questions:
            if not follow:
                thread = f"bench:{uuid.uuid4().hex}"
            result = agent.ask(Question(text=text, thread_id=thread, kb=KB))
            out.append((text, result.latency_ms, result.route, result.rounds))
        return out

    openers = [(text, False) for text, follow in QUESTIONS if not follow]
    try:
        one_pass(agent, QUESTIONS)  # warm-up: model, caches, prepared plans
        started = time.perf_counter()
        timed = [row for _ in range(max(1, args.passes)) for row in one_pass(agent, QUESTIONS)]
        wall = time.perf_counter() - started
        one_pass(cached_agent, openers)  # fills the cache
        hits = [row for _ in range(max(1, args.passes))
                for row in one_pass(cached_agent, openers)]
    finally:
        agent.close()
        cached_agent.close()
        pool.close()
        if not args.keep:
            drop_database(admin, url)
    latencies = [ms for _, ms, _, _ in timed]
    p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
    per_q: dict[str, list[float]] = {}
    for text, ms, _, _ in timed:
        per_q.setdefault(text, []).append(ms)
    print_table(["question", "route", "rounds", "p50 ms"],
                [(t[:40], r, n, percentile(per_q[t], 50)) for t, _, r, n in timed[:len(QUESTIONS)]])
    print(f"\n{len(timed)} answers in {wall:.1f} s: p50 {p50:.0f} ms, p95 {p95:.0f} ms "
          f"(targets: p50 ≤ 300 ms, p95 ≤ 1000 ms)")
    cache = _cache_summary(timed, hits, openers)
    path = write_results("answer_latency", {
        "questions": len(QUESTIONS), "passes": args.passes, "answers": len(timed),
        "p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "max_ms": round(max(latencies), 1),
        "per_question_p50_ms": {t: round(percentile(v, 50), 1) for t, v in per_q.items()},
        **cache,
    })
    print(f"results: {path}")
    return 0


def _cache_summary(timed: list[tuple[str, float, str, int]],
                   hits: list[tuple[str, float, str, int]],
                   openers: list[tuple[str, bool]]) -> dict[str, float]:
    """Print and return cached vs uncached latency of the thread-opening questions."""
    uncached_p50 = percentile([ms for text, ms, _, _ in timed if (text, False) in openers], 50)
    cached_ms = [ms for _, ms, _, _ in hits]
    cached_p50, cached_p95 = percentile(cached_ms, 50), percentile(cached_ms, 95)
    print(f"answer cache, {len(openers)} thread-opening questions: cached p50 "
          f"{cached_p50:.1f} ms, p95 {cached_p95:.1f} ms; uncached p50 {uncached_p50:.0f} ms; "
          f"cached ÷ uncached {cached_p50 / uncached_p50:.3f} (target: cached p50 ≤ 20 ms)")
    return {"cached_p50_ms": round(cached_p50, 2), "cached_p95_ms": round(cached_p95, 2),
            "uncached_openers_p50_ms": round(uncached_p50, 1),
            "cached_over_uncached": round(cached_p50 / uncached_p50, 4)}


if __name__ == "__main__":
    raise SystemExit(main())
