"""Pure scoring functions over result records (no I/O).

Retrieval metrics use ranked, distinct document ids: Recall@k is 1 when any gold document is
among the top k, MRR@10 the reciprocal rank of the first gold document within the top 10,
all-gold@10 is 1 when every gold document is within the top 10. Questions without gold
documents (unanswerable ones) are left out of retrieval metrics.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

RECALL_KS = (1, 5, 10)


def recall_at_k(retrieved: Sequence[str], gold: Iterable[str], k: int) -> float:
    gold_set = set(gold)
    return 1.0 if gold_set and any(d in gold_set for d in retrieved[:k]) else 0.0


def mrr_at_k(retrieved: Sequence[str], gold: Iterable[str], k: int = 10) -> float:
    gold_set = set(gold)
    for rank, doc in enumerate(retrieved[:k], start=1):
        if doc in gold_set:
            return 1.0 / rank
    return 0.0


def all_gold_at_k(retrieved: Sequence[str], gold: Iterable[str], k: int = 10) -> float:
    gold_set = set(gold)
    return 1.0 if gold_set and gold_set <= set(retrieved[:k]) else 0.0


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (``pct`` in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def retrieval_metrics(pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> dict[str, Any]:
    """Mean retrieval metrics over (retrieved, gold) pairs that have gold documents."""
    scored = [(r, g) for r, g in pairs if g]
    out: dict[str, Any] = {"scored": len(scored)}
    if not scored:
        return out
    n = len(scored)
    for k in RECALL_KS:
        out[f"recall@{k}"] = sum(recall_at_k(r, g, k) for r, g in scored) / n
    out["mrr@10"] = sum(mrr_at_k(r, g, 10) for r, g in scored) / n
    out["all_gold@10"] = sum(all_gold_at_k(r, g, 10) for r, g in scored) / n
    return out


def latency_metrics(latencies_ms: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": percentile(latencies_ms, 50), "p95_ms": percentile(latencies_ms, 95)}


def summarize(results: Sequence[Mapping[str, Any]], gold: Mapping[str, Sequence[str]],
              kinds: Mapping[str, str]) -> dict[str, Any]:
    """Overall and per-``kind`` retrieval and latency metrics.

    ``results`` are result records (``id``, ``retrieved_doc_ids``, ``latency_ms``); ``gold``
    and ``kinds`` map question ids to gold document ids and kinds.
    """
    def block(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        pairs = [(list(r["retrieved_doc_ids"]), list(gold.get(r["id"], ()))) for r in rows]
        return {"questions": len(rows), **retrieval_metrics(pairs),
                **latency_metrics([float(r["latency_ms"]) for r in rows])}

    by_kind: dict[str, list[Mapping[str, Any]]] = {}
    for r in results:
        by_kind.setdefault(kinds.get(r["id"], "single"), []).append(r)
    return {"overall": block(results),
            "by_kind": {kind: block(rows) for kind, rows in sorted(by_kind.items())}}


def format_summary(summary: Mapping[str, Any]) -> str:
    """A plain-text table: one row overall, one per kind."""
    cols = ("questions", "scored", "recall@1", "recall@5", "recall@10", "mrr@10",
            "all_gold@10", "p50_ms", "p95_ms")
    rows = [("all", summary["overall"]), *list(summary.get("by_kind", {}).items())]
    if len(rows) == 2:
        rows = rows[:1]  # one kind only: its row repeats the overall one

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, float):
            return "-" if math.isnan(value) else f"{value:.3f}" if value <= 1 else f"{value:.1f}"
        return str(value)

    table = [("kind", *cols)] + [(name, *(cell(m.get(c)) for c in cols)) for name, m in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return "\n".join("  ".join(c.rjust(w) if i else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                     for r in table)
