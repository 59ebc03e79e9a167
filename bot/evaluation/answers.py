"""Answer-level scoring (pure): accuracy, refusals, follow-up recall, rounds, and comparison.

An answer is correct when, for every answer group, one alternative occurs in the answer's
first 600 characters after Unicode NFKC, case-folding and whitespace removal.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from bot.evaluation.dataset import Question
from bot.evaluation.metrics import all_gold_at_k, mrr_at_k, percentile, recall_at_k

ANSWER_PREFIX = 600


def _norm(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def answer_correct(answer: str | None, groups: Sequence[Sequence[str]]) -> bool | None:
    """True/False when the question has answer groups, None when it has none."""
    if not groups:
        return None
    head = _norm((answer or "")[:ANSWER_PREFIX])
    return all(any(_norm(alt) and _norm(alt) in head for alt in group) for group in groups)


def scores(record: Mapping[str, Any], q: Question) -> dict[str, Any]:
    """Per-question scores kept on the result line, so two runs compare without the set."""
    retrieved = list(record.get("retrieved_doc_ids") or [])
    gold = list(q.gold_doc_ids)
    out: dict[str, Any] = {"kind": q.kind, "answerable": q.answerable}
    if gold:
        out.update({"recall@5": recall_at_k(retrieved, gold, 5),
                    "mrr@10": mrr_at_k(retrieved, gold, 10),
                    "all_gold@10": all_gold_at_k(retrieved, gold, 10)})
    if record.get("answer") is not None:
        out["answer_correct"] = (answer_correct(record.get("answer"), q.answers)
                                 if q.answerable and not record.get("refused") else
                                 (False if q.answers else None))
    return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def answer_block(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Answer metrics over result lines carrying ``scores`` (see :func:`scores`)."""
    sc = [r.get("scores") or {} for r in rows]
    graded = [s["answer_correct"] for s in sc if s.get("answer_correct") is not None]
    answerable = [r for r, s in zip(rows, sc, strict=True) if s.get("answerable", True)]
    unanswerable = [r for r, s in zip(rows, sc, strict=True) if not s.get("answerable", True)]
    follow = [s for s in sc if s.get("kind") == "follow_up" and "recall@5" in s]
    rounds = [float(r["rounds"]) for r in rows if r.get("rounds") is not None]
    return {
        "questions": len(rows),
        "recall@5": _mean([s["recall@5"] for s in sc if "recall@5" in s]),
        "mrr@10": _mean([s["mrr@10"] for s in sc if "mrr@10" in s]),
        "all_gold@10": _mean([s["all_gold@10"] for s in sc if "all_gold@10" in s]),
        "answer_acc": _mean([1.0 if g else 0.0 for g in graded]),
        "graded": len(graded),
        "refusal_acc": _mean([1.0 if r.get("refused") else 0.0 for r in unanswerable]),
        "false_refusal": _mean([1.0 if r.get("refused") else 0.0 for r in answerable]),
        "followup_r@5": _mean([s["recall@5"] for s in follow]),
        "rounds": _mean(rounds),
        "p50_ms": percentile([float(r["latency_ms"]) for r in rows], 50),
        "p95_ms": percentile([float(r["latency_ms"]) for r in rows], 95),
    }


def answer_summary(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    by_kind: dict[str, list[Mapping[str, Any]]] = {}
    for r in results:
        by_kind.setdefault((r.get("scores") or {}).get("kind", "single"), []).append(r)
    return {"overall": answer_block(results),
            "by_kind": {k: answer_block(v) for k, v in sorted(by_kind.items())}}


COLUMNS = ("questions", "recall@5", "mrr@10", "all_gold@10", "answer_acc", "refusal_acc",
           "false_refusal", "followup_r@5", "rounds", "p50_ms", "p95_ms")


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) <= 1 else f"{value:.1f}"
    return str(value)


def _table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.rjust(w) if i else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                     for r in rows)


def format_answer_summary(summary: Mapping[str, Any]) -> str:
    rows = [("all", summary["overall"]), *summary["by_kind"].items()]
    return _table([("kind", *COLUMNS)]
                  + [(name, *(_cell(m.get(c)) for c in COLUMNS)) for name, m in rows])


def compare(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> str:
    """Per-kind metrics of run A, run B and B − A (on the questions both runs answered)."""
    ids = {r["id"] for r in a} & {r["id"] for r in b}
    sa, sb = (answer_summary([r for r in run if r["id"] in ids]) for run in (a, b))
    lines: list[tuple[str, ...]] = [("kind", "run", *COLUMNS)]
    for kind in ["all", *sorted(set(sa["by_kind"]) | set(sb["by_kind"]))]:
        ma = sa["overall"] if kind == "all" else sa["by_kind"].get(kind, {})
        mb = sb["overall"] if kind == "all" else sb["by_kind"].get(kind, {})
        lines.append((kind, "A", *(_cell(ma.get(c)) for c in COLUMNS)))
        lines.append(("", "B", *(_cell(mb.get(c)) for c in COLUMNS)))
        delta = []
        for c in COLUMNS:
            x, y = ma.get(c), mb.get(c)
            ok = isinstance(x, int | float) and isinstance(y, int | float)
            d = (y - x) if ok else None
            delta.append("-" if d is None or (isinstance(d, float) and math.isnan(d))
                         else f"{d:+.3f}" if abs(d) <= 1 else f"{d:+.1f}")
        lines.append(("", "B-A", *delta))
    return _table(lines)
