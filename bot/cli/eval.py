"""``ragbot eval DIR --kb NAME --out RESULTS.jsonl [--retrieval-only]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.context import AppContext
    from bot.evaluation.runner import Step

_EPILOG = """\
DIR holds corpus.jsonl and questions.jsonl (format: ../shared/datasets/README.md). The corpus
is ingested into the KB first (unchanged documents are skipped, so a second run starts at
once). One JSON line per question goes to --out; the summary (Recall@1/5/10, MRR@10,
all-gold@10, p50/p95 latency, overall and per kind) is printed at the end.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from bot.cli.search import add_fusion_argument

    parser = sub.add_parser("eval", help="evaluate retrieval (and answers) on a dataset folder",
                            description="Evaluate on a dataset folder.", epilog=_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", metavar="DIR", type=Path)
    parser.add_argument("--kb", default=None,
                        help="knowledge base to (re)use (default: the folder's name)")
    parser.add_argument("--out", type=Path, required=True, metavar="RESULTS.jsonl")
    parser.add_argument("--retrieval-only", action="store_true",
                        help="search only: no answers, routes or rounds")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="only the first N questions (in replay order)")
    parser.add_argument("--rerank", action="store_true",
                        help="re-score with the cross-encoder in RAGBOT_RERANKER")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--no-ingest", action="store_true",
                        help="use the KB as it is; do not ingest DIR/corpus.jsonl")
    add_fusion_argument(parser)
    # Debug: search with the human rewrite instead of the raw question (follow-ups).
    parser.add_argument("--query-field", choices=("question", "gold_rewrite"),
                        default="question", help=argparse.SUPPRESS)
    parser.set_defaults(handler=run)


def build_step(args: argparse.Namespace, ctx: AppContext, kb: str) -> Step:
    """The per-question step for this run (the agent's answering step plugs in here)."""
    from bot.cli.search import load_reranker_from
    from bot.evaluation.runner import retrieval_step
    from store.errors import StoreError

    reranker = load_reranker_from(ctx) if args.rerank else None
    if args.retrieval_only:
        return retrieval_step(ctx.pool, kb, embedder=ctx.embedder, fusion=args.fusion,
                              reranker=reranker, query_field=args.query_field)
    raise StoreError("full evaluation (answers) is not available in this build; "
                     "run with --retrieval-only")


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from bot.evaluation.dataset import load_questions, replay_order
    from bot.evaluation.metrics import format_summary, summarize
    from bot.evaluation.runner import ensure_corpus, run_questions, write_results

    folder: Path = args.dir.expanduser()
    kb = args.kb or folder.resolve().name
    questions = load_questions(folder / "questions.jsonl")
    if args.limit is not None:
        questions = replay_order(questions)[: max(0, args.limit)]
    if not args.no_ingest:
        report = ensure_corpus(ctx.pool, kb, folder, embedder=ctx.embedder)
        print(f"corpus: {report.summary()}", file=sys.stderr)
        for line in report.errors:
            print(f"  {line}", file=sys.stderr)
    step = build_step(args, ctx, kb)
    results = write_results(run_questions(questions, step), args.out)
    summary = summarize(results, {q.id: q.gold_doc_ids for q in questions},
                        {q.id: q.kind for q in questions})
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{len(results)} questions -> {args.out}")
        print(format_summary(summary))
    return 0
