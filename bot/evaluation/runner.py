"""Replay an evaluation set through a per-question step and write one result line each.

The step is pluggable: :func:`retrieval_step` (search only) lives here; the agent supplies
a step that answers through the graph. Both return a :class:`StepOutput`; the runner adds the
id and the latency and writes the line in the format ../shared/DESIGN.md fixes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import structlog

from bot.evaluation.dataset import DatasetError, Question, replay_order
from store.errors import StoreError
from store.fusion import FusionMode, distinct_docs

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from store.crosslang import Translator
    from store.embedder import Embedder
    from store.ingest import IngestReport
    from store.rerank import Reranker

log = structlog.get_logger("ragbot.eval")

QueryField = Literal["question", "gold_rewrite"]


@dataclass
class StepOutput:
    """What one question produced (everything of a result line but id and latency)."""

    retrieved_doc_ids: list[str]
    answer: str | None = None
    refused: bool = False
    cited_doc_ids: list[str] = field(default_factory=list)
    # The cited passages ({"n", "doc_id", "text"}), for the faithfulness score.
    cited_passages: list[dict[str, Any]] | None = None
    rewritten_query: str | None = None
    route: str | None = None
    rounds: int | None = None
    kbs: list[str] | None = None  # the KBs searched, when the question had several


Step = Callable[[Question], StepOutput]


def result_record(question: Question, output: StepOutput, latency_ms: float) -> dict[str, Any]:
    """The result line for one question (``cited_passages`` only when the step gave them)."""
    fields = {k: v for k, v in asdict(output).items()
              if k not in ("cited_passages", "kbs") or v is not None}
    return {"id": question.id, **fields, "latency_ms": round(latency_ms, 2)}


def run_questions(questions: Sequence[Question], step: Step) -> Iterator[dict[str, Any]]:
    """Ask ``questions`` in replay order (thread turns in order); yield result records.

    A step that raises something other than a StoreError (which means the setup is wrong and
    stops the run) yields a record with ``error`` and no documents, and the run goes on.
    """
    for question in replay_order(questions):
        started = time.perf_counter()
        try:
            output = step(question)
        except StoreError:
            raise
        except Exception as exc:
            log.exception("eval_question_failed", question_id=question.id)
            record = result_record(question, StepOutput(retrieved_doc_ids=[]),
                                   (time.perf_counter() - started) * 1000)
            record["error"] = f"{type(exc).__name__}: {exc}"
            yield record
            continue
        yield result_record(question, output, (time.perf_counter() - started) * 1000)


def write_results(records: Iterator[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    """Write ``records`` as JSON lines to ``out`` as they come; return them."""
    out.parent.mkdir(parents=True, exist_ok=True)
    kept: list[dict[str, Any]] = []
    with out.open("w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()
            kept.append(record)
    return kept


def query_text(question: Question, query_field: QueryField) -> str:
    if query_field == "gold_rewrite" and question.gold_rewrite:
        return question.gold_rewrite
    return question.question


def retrieval_step(pool: ConnectionPool, kb_name: str, *, embedder: Embedder,
                   docs: int = 20, chunks: int = 50, fusion: FusionMode = "auto",
                   reranker: Reranker | None = None,
                   query_field: QueryField = "question",
                   principals: tuple[str, ...] = ("public",),
                   translator: Translator | None = None) -> Step:
    """A step that only searches as ``principals``: ``chunks`` hits, deduplicated into up to
    ``docs`` documents."""
    from store.search import search

    def step(question: Question) -> StepOutput:
        hits = search(pool, kb_name, query_text(question, query_field), embedder=embedder,
                      k=chunks, candidates=max(chunks, 50), fusion=fusion, reranker=reranker,
                      principals=principals, translator=translator)
        return StepOutput(retrieved_doc_ids=distinct_docs(h.doc_id for h in hits)[:docs])

    return step


def ensure_corpus(pool: ConnectionPool, kb_name: str, folder: Path, *,
                  embedder: Embedder) -> IngestReport:
    """Ingest ``folder``/corpus.jsonl into the KB; unchanged documents are skipped by hash,
    documents gone from the corpus are archived."""
    from store.ingest import ingest_paths

    corpus = folder / "corpus.jsonl"
    if not corpus.is_file():
        raise DatasetError(f"{corpus} not found; an evaluation folder holds corpus.jsonl and "
                           "questions.jsonl (see ../shared/datasets/README.md)")
    return ingest_paths(pool, kb_name, [corpus], embedder=embedder, prune=True)
