"""``ragbot eval DIR --split-kbs PREFIX``: the corpus split into one KB per ``metadata.kb``,
every question asked against the whole set, so the router's choice is measured.

Each domain's lines are written to ``RAGBOT_HOME/eval-splits/<set>/<PREFIX>-<kb>.jsonl`` (a
stable path, so a second run skips unchanged documents and ``ragbot reindex`` can re-read it)
and ingested into KB ``<PREFIX>-<kb>``. Routing accuracy: the share of questions with gold
documents for which a gold document's KB was among those searched, overall and per KB.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.evaluation.dataset import DatasetError, Question

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from store.embedder import Embedder
    from store.ingest import IngestReport


@dataclass
class SplitCorpus:
    kbs: tuple[str, ...]  # the KB names, sorted
    doc_kb: dict[str, str]  # document id -> its KB
    reports: dict[str, IngestReport] = field(default_factory=dict)


def split_lines(corpus: Path, prefix: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The corpus lines per KB name (``PREFIX-<metadata.kb>``) and each document's KB.
    A line without ``metadata.kb`` is a DatasetError naming the line and the fix."""
    from store.kbset import check_kb_name

    per_kb: dict[str, list[str]] = {}
    doc_kb: dict[str, str] = {}
    for number, line in enumerate(corpus.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        item = f"{corpus}:{number}"
        try:
            obj = json.loads(line)
            domain = str((obj.get("metadata") or {}).get("kb") or "").strip()
            doc_id = str(obj["id"])
        except (ValueError, KeyError, AttributeError) as exc:
            raise DatasetError(f"{item}: not a corpus line ({exc}); see "
                               "../shared/datasets/README.md") from exc
        if not domain:
            raise DatasetError(f"{item}: no metadata.kb; --split-kbs needs every corpus line "
                               "to name its domain KB (or run without --split-kbs)")
        name = f"{prefix}-{domain}"
        try:
            check_kb_name(name)
        except ValueError as exc:
            raise DatasetError(f"{item}: {exc}") from exc
        per_kb.setdefault(name, []).append(line)
        doc_kb[doc_id] = name
    return per_kb, doc_kb


def ensure_split_corpus(pool: ConnectionPool, folder: Path, prefix: str, home: Path, *,
                        embedder: Embedder) -> SplitCorpus:
    """Write and ingest each domain's lines into its KB (unchanged documents skipped,
    documents gone from a domain archived)."""
    from store.ingest import ingest_paths

    corpus = folder / "corpus.jsonl"
    if not corpus.is_file():
        raise DatasetError(f"{corpus} not found; an evaluation folder holds corpus.jsonl and "
                           "questions.jsonl (see ../shared/datasets/README.md)")
    per_kb, doc_kb = split_lines(corpus, prefix)
    out_dir = home / "eval-splits" / folder.resolve().name
    out_dir.mkdir(parents=True, exist_ok=True)
    split = SplitCorpus(kbs=tuple(sorted(per_kb)), doc_kb=doc_kb)
    for name in split.kbs:
        path = out_dir / f"{name}.jsonl"
        text = "\n".join(per_kb[name]) + "\n"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        split.reports[name] = ingest_paths(pool, name, [path], embedder=embedder, prune=True)
    return split


def routing_accuracy(results: Sequence[dict[str, Any]], questions: Sequence[Question],
                     doc_kb: dict[str, str]) -> dict[str, Any]:
    """Overall and per-KB share of routed questions whose gold KB was searched. Questions
    without gold documents or without a searched set (a clarification) are not counted."""
    by_id = {q.id: q for q in questions}
    per_kb: dict[str, list[int]] = {}
    for r in results:
        q = by_id.get(r["id"])
        searched = r.get("kbs")
        if q is None or not q.gold_doc_ids or not searched:
            continue
        gold = [doc_kb[d] for d in q.gold_doc_ids if d in doc_kb]
        if not gold:
            continue
        right = int(any(k in searched for k in gold))
        per_kb.setdefault(gold[0], []).append(right)
    total = [v for vs in per_kb.values() for v in vs]
    return {
        "routing_accuracy": round(sum(total) / len(total), 3) if total else None,
        "routed": len(total),
        "per_kb": {kb: {"accuracy": round(sum(vs) / len(vs), 3), "questions": len(vs)}
                   for kb, vs in sorted(per_kb.items())},
    }


def format_routing(summary: dict[str, Any]) -> str:
    """The routing table printed after the other metrics."""
    lines = [f"routing accuracy {summary['routing_accuracy']} ({summary['routed']} questions "
             "with gold documents)"]
    for kb, row in summary["per_kb"].items():
        lines.append(f"  {kb:<24} {row['accuracy']:.3f}  ({row['questions']})")
    return "\n".join(lines)
