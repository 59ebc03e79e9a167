"""Answer-level scoring (pure): accuracy, refusals, clarifications, faithfulness, follow-up
recall, rounds, and comparison.

An answer is correct when, for every answer group, one alternative occurs in the answer's
first 600 characters (``answer_acc``) or first 200 (``acc@200``), as
:mod:`bot.evaluation.matching` matches them (Latin edges at word boundaries, yes/no as the
verdict). A question with ``expect: "clarify"`` is right when the route is ``clarify``; it is
left out of the refusal figures. ``faithful`` is the share of answer sentences found in or
covered by a passage they cite (:mod:`bot.evaluation.faithful`); ``unrelated`` the share of
answers citing a document that is not among the question's gold documents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from bot.evaluation.dataset import Question
from bot.evaluation.faithful import faithfulness
from bot.evaluation.matching import group_found
from bot.evaluation.metrics import all_gold_at_k, mrr_at_k, percentile, recall_at_k

ANSWER_PREFIX = 600
SHORT_PREFIX = 200


def answer_correct(answer: str | None, groups: Sequence[Sequence[str]],
                   prefix: int = ANSWER_PREFIX) -> bool | None:
    """True/False when the question has answer groups, None when it has none: every group
    must be found in the answer's first ``prefix`` characters."""
    if not groups:
        return None
    head = (answer or "")[:prefix]
    return all(group_found(head, group) for group in groups)


def expects_clarify(q: Question) -> bool:
    return q.extra.get("expect") == "clarify"


def _labels(q: Question) -> dict[str, Any]:
    tags = q.extra.get("tags")
    lang = q.extra.get("lang")
    return {"tags": [str(t) for t in tags] if isinstance(tags, list) else [],
            "lang": str(lang) if lang else None,
            "clarify": expects_clarify(q)}


def _answer_scores(record: Mapping[str, Any], q: Question) -> dict[str, Any]:
    answer, refused = record.get("answer"), bool(record.get("refused"))
    if expects_clarify(q):
        return {"answer_correct": record.get("route") == "clarify"}
    out: dict[str, Any] = {}
    for key, prefix in (("answer_correct", ANSWER_PREFIX), ("correct@200", SHORT_PREFIX)):
        out[key] = (answer_correct(answer, q.answers, prefix) if q.answerable and not refused
                    else (False if q.answers else None))
    cited = list(record.get("cited_doc_ids") or [])
    out["cites_unrelated"] = any(d not in set(q.gold_doc_ids) for d in cited)
    passages = record.get("cited_passages")
    if passages is not None and answer:
        out["faithful"], out["sentences"] = faithfulness(answer, passages)
    return out


def scores(record: Mapping[str, Any], q: Question) -> dict[str, Any]:
    """Per-question scores kept on the result line, so two runs compare without the set."""
    retrieved = list(record.get("retrieved_doc_ids") or [])
    gold = list(q.gold_doc_ids)
    out: dict[str, Any] = {"kind": q.kind, "answerable": q.answerable, **_labels(q)}
    if gold:
        out.update({"recall@5": recall_at_k(retrieved, gold, 5),
                    "mrr@10": mrr_at_k(retrieved, gold, 10),
                    "all_gold@10": all_gold_at_k(retrieved, gold, 10)})
    if record.get("answer") is not None:
        out.update(_answer_scores(record, q))
    return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _rate(values: Sequence[Any]) -> float:
    return _mean([1.0 if v else 0.0 for v in values])


def answer_block(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Answer metrics over result lines carrying ``scores`` (see :func:`scores`)."""
    sc = [r.get("scores") or {} for r in rows]
    pairs = list(zip(rows, sc, strict=True))
    graded = [s["answer_correct"] for s in sc
              if s.get("answer_correct") is not None and not s.get("clarify")]
    short = [s["correct@200"] for s in sc if s.get("correct@200") is not None]
    # Clarify questions are neither answerable nor unanswerable: they have their own figure.
    answerable = [r for r, s in pairs if s.get("answerable", True) and not s.get("clarify")]
    unanswerable = [r for r, s in pairs if not s.get("answerable", True)
                    and not s.get("clarify")]
    clarify = [s.get("answer_correct") for s in sc if s.get("clarify")]
    follow = [s for s in sc if s.get("kind") == "follow_up" and "recall@5" in s]
    rounds = [float(r["rounds"]) for r in rows if r.get("rounds") is not None]
    counted = sum(int(s.get("sentences", 0)) for s in sc)
    return {
        "questions": len(rows),
        "recall@5": _mean([s["recall@5"] for s in sc if "recall@5" in s]),
        "mrr@10": _mean([s["mrr@10"] for s in sc if "mrr@10" in s]),
        "all_gold@10": _mean([s["all_gold@10"] for s in sc if "all_gold@10" in s]),
        "answer_acc": _rate(graded),
        "acc@200": _rate(short),
        "graded": len(graded),
        "refusal_acc": _rate([r.get("refused") for r in unanswerable]),
        "false_refusal": _rate([r.get("refused") for r in answerable]),
        "clarify_acc": _rate(clarify),
        "faithful": (sum(int(s.get("faithful", 0)) for s in sc) / counted if counted
                     else math.nan),
        "unrelated": _rate([s["cites_unrelated"] for s in sc if "cites_unrelated" in s]),
        "followup_r@5": _mean([s["recall@5"] for s in follow]),
        "rounds": _mean(rounds),
        "p50_ms": percentile([float(r["latency_ms"]) for r in rows], 50),
        "p95_ms": percentile([float(r["latency_ms"]) for r in rows], 95),
    }


def _groups(results: Sequence[Mapping[str, Any]], key: str) -> dict[str, list[Any]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for r in results:
        value = (r.get("scores") or {}).get(key)
        for label in value if isinstance(value, list) else [value]:
            if label is not None:
                out.setdefault(str(label), []).append(r)
    return dict(sorted(out.items()))


def answer_summary(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Answer metrics overall, per kind, per tag and per language."""
    by_kind: dict[str, list[Mapping[str, Any]]] = {}
    for r in results:
        by_kind.setdefault((r.get("scores") or {}).get("kind", "single"), []).append(r)
    return {"overall": answer_block(results),
            "by_kind": {k: answer_block(v) for k, v in sorted(by_kind.items())},
            "by_tag": {k: answer_block(v) for k, v in _groups(results, "tags").items()},
            "by_lang": {k: answer_block(v) for k, v in _groups(results, "lang").items()}}


COLUMNS = ("questions", "recall@5", "mrr@10", "all_gold@10", "answer_acc", "acc@200",
           "refusal_acc", "false_refusal", "clarify_acc", "faithful", "unrelated",
           "followup_r@5", "rounds", "p50_ms", "p95_ms")


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
    """Tables per kind, then per tag and per language when the set labels its questions."""
    rows = [("all", summary["overall"]), *summary["by_kind"].items()]
    out = [_table([("kind", *COLUMNS)]
                  + [(name, *(_cell(m.get(c)) for c in COLUMNS)) for name, m in rows])]
    for key, title in (("by_tag", "tag"), ("by_lang", "lang")):
        if summary.get(key):
            out.append(_table([(title, *COLUMNS)]
                              + [(name, *(_cell(m.get(c)) for c in COLUMNS))
                                 for name, m in summary[key].items()]))
    return "\n\n".join(out)


def compare(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> str:
    """Per-kind metrics of run A, run B and B − A (on the questions both runs answered)."""
    ids = {r["id"] for r in a} & {r["id"] for r in b}
    sa, sb = (answer_summary([r for r in run if r["id"] in ids]) for run in (a, b))
    lines: list[tuple[str, ...]] = [("kind", "run", *COLUMNS)]
    for kind in ["all", *sorted(set(sa["by_kind"]) | set(sb["by_kind"]))]:
        ma = sa["overall"] if kind == "all" else sa["by_kind"].get(kind, {})
        mb = sb["overall"] if kind == "all" else sb["by_kind"].get(kind, {})
        lines.append((kind, "A", *(_cell(ma.get(c)) for c in COLUMNS)))
        # Every row names its kind: a blank first cell reads as one column fewer when the
        # table is pasted into a spreadsheet or split on whitespace.
        lines.append((kind, "B", *(_cell(mb.get(c)) for c in COLUMNS)))
        delta = []
        for c in COLUMNS:
            x, y = ma.get(c), mb.get(c)
            ok = isinstance(x, int | float) and isinstance(y, int | float)
            d = (y - x) if ok else None
            delta.append("-" if d is None or (isinstance(d, float) and math.isnan(d))
                         else f"{d:+d}" if isinstance(d, int)
                         else f"{d:+.3f}" if abs(d) <= 1 else f"{d:+.1f}")
        lines.append((kind, "B-A", *delta))
    return _table(lines)
