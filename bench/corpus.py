"""Benchmark texts: documents from a shared dataset, or generated prose when it is absent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from store import readers
from store.chunking import chunk_text, embedding_input
from store.ingest import EMBED_BATCH_CHUNKS
from store.types import SourceDocument

DATASETS = Path("/work/shared/datasets")
DEFAULT_DATASET = DATASETS / "hotpotqa" / "corpus.jsonl"

_WORDS = (
    "system", "service", "policy", "request", "team", "data", "access", "network", "server",
    "release", "deploy", "rollback", "incident", "alert", "memory", "disk", "backup", "restore",
    "approval", "manager", "employee", "travel", "expense", "report", "review", "security",
    "certificate", "password", "account", "customer", "invoice", "contract", "schedule",
    "meeting", "project", "budget", "quarter", "target", "metric", "latency", "cache",
    "database", "index", "query", "cluster", "region", "replica", "failover", "monitor",
)


def write_corpus(dest: Path, docs: int, source: Path = DEFAULT_DATASET, seed: int = 3) -> str:
    """Write ``docs`` documents as a ``.jsonl`` corpus to ``dest``; return where they came from.

    Takes the first ``docs`` lines of ``source`` when it exists, else generates paragraphs
    (so the benchmark runs anywhere; the datasets live outside the project).
    """
    lines: list[str] = []
    origin = str(source)
    if source.exists():
        with source.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    lines.append(line.rstrip("\n"))
                if len(lines) >= docs:
                    break
    if len(lines) < docs:
        origin = "generated" if not lines else f"{source} + generated"
        rng = np.random.default_rng(seed)
        for i in range(len(lines), docs):
            sentences = [" ".join(rng.choice(_WORDS, size=int(rng.integers(8, 20)))).capitalize()
                         + "." for _ in range(int(rng.integers(4, 12)))]
            lines.append(json.dumps({"id": f"gen-{i}", "title": f"Generated {i}",
                                     "text": " ".join(sentences)}))
    dest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return origin


def embedding_inputs(corpus: Path) -> list[str]:
    """The texts ingestion embeds for ``corpus``: same reader, chunker and input format."""
    texts: list[str] = []
    for item in readers.read_plan(readers.plan([corpus])):
        if isinstance(item, SourceDocument):
            texts.extend(embedding_input(item.title, d.heading_path, d.text)
                         for d in chunk_text(item.text, item.fmt))
    return texts


def batches(texts: list[str], size: int = EMBED_BATCH_CHUNKS) -> list[list[str]]:
    """The embedder calls ingestion makes: ``size`` chunks per call."""
    return [texts[i:i + size] for i in range(0, len(texts), size)]
