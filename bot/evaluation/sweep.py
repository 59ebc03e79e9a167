"""Fusion-weight sweep on an ingested evaluation set (how the fusion weights were chosen).

Each question is embedded once; its dense and keyword top-50 are fetched through
``store.search.search`` (the same SQL as production, one side at a time) and fused here with
the reference formula (``store.fusion.rrf_scores``, identical to the SQL) for every weight.

    python -m bot.evaluation.sweep DIR --kb NAME [--weights 0,0.1,0.2,1] [--half first|second]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from bot.evaluation.dataset import Question, load_questions, replay_order
from bot.evaluation.metrics import retrieval_metrics
from store.fusion import distinct_docs, rrf_scores


class CachedQueryEmbedder:
    """Wraps an embedder so that repeated searches for one query embed it once."""

    def __init__(self, inner: Any) -> None:
        self.name, self.dim, self.multilingual = inner.name, inner.dim, inner.multilingual
        self._inner = inner
        self.embed_query = lru_cache(maxsize=4)(inner.embed_query)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._inner.embed_documents(texts))


def sides(pool: Any, kb: str, embedder: Any, question: Question) -> dict[str, Any]:
    """Dense and keyword top-50 chunk rankings (ids) and chunk -> doc ids."""
    from store.search import search

    dense = search(pool, kb, question.question, embedder=embedder, k=50, fusion="dense")
    keyword = search(pool, kb, question.question, embedder=embedder, k=50, fusion="keyword")
    docs = {h.chunk_id: h.doc_id for h in [*dense, *keyword]}
    return {"dense": [h.chunk_id for h in dense], "keyword": [h.chunk_id for h in keyword],
            "docs": docs}


def fused_docs(side: dict[str, Any], dense_weight: float, keyword_weight: float) -> list[str]:
    scores = rrf_scores({"dense": side["dense"], "keyword": side["keyword"]},
                        {"dense": dense_weight, "keyword": keyword_weight})
    order = sorted(scores, key=lambda c: (-scores[c], c))
    return distinct_docs(side["docs"][c] for c in order)


def main(argv: list[str] | None = None) -> int:
    from bot.context import AppContext
    from bot.logging_setup import configure_logging
    from bot.settings import Settings

    parser = argparse.ArgumentParser(prog="python -m bot.evaluation.sweep")
    parser.add_argument("dir", type=Path)
    parser.add_argument("--kb", required=True)
    parser.add_argument("--weights", default="0,0.01,0.05,0.1,0.2,0.5,1",
                        help="dense weights to try (keyword weight 1)")
    parser.add_argument("--half", choices=("all", "first", "second"), default="all",
                        help="only the first or second half of the questions (in file order)")
    args = parser.parse_args(argv)
    questions = load_questions(args.dir / "questions.jsonl")
    half = len(questions) // 2
    questions = {"all": questions, "first": questions[:half],
                 "second": questions[half:]}[args.half]
    configure_logging("WARNING", "console")
    ctx = AppContext(Settings())
    try:
        embedder = CachedQueryEmbedder(ctx.embedder)
        per_q = [(q, sides(ctx.pool, args.kb, embedder, q)) for q in replay_order(questions)]
    finally:
        ctx.close()
    rows: dict[str, Any] = {}
    for label, (wd, wk) in [("keyword", (0.0, 1.0)), ("dense", (1.0, 0.0))] + [
            (f"w={w}", (float(w), 1.0)) for w in args.weights.split(",")]:
        pairs = [(fused_docs(s, wd, wk), list(q.gold_doc_ids)) for q, s in per_q]
        rows[label] = retrieval_metrics(pairs)
    print(json.dumps({"set": str(args.dir), "half": args.half, "questions": len(per_q),
                      "metrics": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
