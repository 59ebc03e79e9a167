"""``ragbot eval DIR --kb NAME --out RESULTS.jsonl [--retrieval-only]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.context import AppContext
    from bot.evaluation.runner import Step
    from bot.evaluation.split import SplitCorpus

_EPILOG = """\
DIR holds corpus.jsonl and questions.jsonl (format: ../shared/datasets/README.md). The corpus
is ingested into the KB first (unchanged documents are skipped, so a second run starts at
once). One JSON line per question goes to --out; the summary (Recall@1/5/10, MRR@10,
all-gold@10, p50/p95 latency, overall and per kind) is printed at the end. In full mode the
answers are scored too (accuracy within 600 and 200 characters, refusals, clarifications,
faithfulness to the cited passages, citations outside the gold documents), per kind, per
tag and per language.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from bot.cli.search import add_fusion_argument

    parser = sub.add_parser("eval", help="evaluate retrieval (and answers) on a dataset folder",
                            description="Evaluate on a dataset folder.", epilog=_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    # "ragbot eval compare A.jsonl B.jsonl" shares this command: DIR is then "compare".
    parser.add_argument("dir", metavar="DIR", type=Path, nargs="+",
                        help="dataset folder, or `compare A.jsonl B.jsonl`")
    parser.add_argument("--kb", default=None,
                        help="knowledge base to (re)use (default: the folder's name)")
    parser.add_argument("--split-kbs", default=None, metavar="PREFIX",
                        help="ingest each document into KB PREFIX-<metadata.kb> and ask every "
                        "question against them all (the router picks), reporting per-KB "
                        "routing accuracy; answers mode only")
    parser.add_argument("--out", type=Path, default=None, metavar="RESULTS.jsonl",
                        help="where result lines go (required unless comparing)")
    parser.add_argument("--retrieval-only", action="store_true",
                        help="search only: no answers, routes or rounds")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="only the first N questions (in replay order)")
    parser.add_argument("--rerank", action="store_true",
                        help="re-score with the cross-encoder in RAGBOT_RERANKER")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--max-rounds", type=int, default=3, metavar="N",
                        help="search rounds per question in full mode (1 = the single-round "
                        "baseline; default 3)")
    parser.add_argument("--principal", action="append", default=None, metavar="P",
                        help="ask as this access principal, e.g. user:U123 (repeatable; "
                        "public always)")
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

    reranker = load_reranker_from(ctx) if args.rerank else None
    principals = tuple(dict.fromkeys(["public", *(args.principal or [])]))
    from agent.factory import translator_from_settings

    if args.retrieval_only:
        return retrieval_step(ctx.pool, kb, embedder=ctx.embedder, fusion=args.fusion,
                              reranker=reranker, query_field=args.query_field,
                              principals=principals,
                              translator=translator_from_settings(ctx.settings))
    from agent.api import AgentConfig, build_agent
    from agent.factory import engine_from_settings
    from bot.evaluation.agent_step import agent_step

    # no answer cache: every question is answered (and timed) as asked
    config = AgentConfig(max_rounds=max(1, args.max_rounds), answer_cache=False)
    agent = build_agent(ctx.pool, ctx.embedder, engine=engine_from_settings(ctx.settings),
                        reranker=reranker, config=config,
                        translator=translator_from_settings(ctx.settings))
    return agent_step(agent, kb, principals=principals)


def compare_runs(paths: list[Path]) -> int:
    """``ragbot eval compare A.jsonl B.jsonl``: per-kind metrics of both runs and B − A."""
    from bot.evaluation.answers import compare

    if len(paths) != 2:
        print("error: usage: ragbot eval compare A.jsonl B.jsonl", file=sys.stderr)
        return 2
    runs = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
            runs.append([json.loads(line) for line in lines if line.strip()])
        except (OSError, ValueError) as exc:
            print(f"error: cannot read results {path}: {exc}", file=sys.stderr)
            return 2
    missing = [str(p) for p, rows in zip(paths, runs, strict=True)
               if rows and "scores" not in rows[0]]
    if missing:
        print(f"error: {', '.join(missing)} has no per-question scores; re-run `ragbot eval` "
              "with this version to compare", file=sys.stderr)
        return 2
    print(f"A = {paths[0]}\nB = {paths[1]}")
    print(compare(runs[0], runs[1]))
    return 0


def _record_history(args: argparse.Namespace, ctx: AppContext, folder: Path, kb: str,
                    results: list[dict[str, Any]]) -> None:
    """Keep the run for ``ragbot report``: set, commit, settings, per-question results."""
    from bot.evaluation.history import code_commit, run_settings
    from store.eval_runs import record_run

    with ctx.pool.connection() as conn:
        run_id = record_run(conn, set_name=folder.resolve().name, kb=kb,
                            code_commit=code_commit(), settings=run_settings(args, ctx.settings),
                            results=results)
    print(f"recorded as eval run #{run_id} (ragbot report --out report.html)", file=sys.stderr)


def _prepare_corpus(args: argparse.Namespace, ctx: AppContext, folder: Path, kb: str
                    ) -> tuple[str, SplitCorpus | None]:
    """Ingest the corpus (into one KB, or split into its domains' KBs); the KB key asked."""
    from bot.evaluation.runner import ensure_corpus

    if args.split_kbs is not None:
        from bot.evaluation.split import ensure_split_corpus

        split = ensure_split_corpus(ctx.pool, folder, args.split_kbs, ctx.settings.home,
                                    embedder=ctx.embedder)
        for name, report in split.reports.items():
            print(f"corpus {name}: {report.summary()}", file=sys.stderr)
            for line in report.errors:
                print(f"  {line}", file=sys.stderr)
        return "+".join(split.kbs), split
    if not args.no_ingest:
        report = ensure_corpus(ctx.pool, kb, folder, embedder=ctx.embedder)
        print(f"corpus: {report.summary()}", file=sys.stderr)
        for line in report.errors:
            print(f"  {line}", file=sys.stderr)
    return kb, None


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from bot.evaluation.answers import answer_summary, format_answer_summary, scores
    from bot.evaluation.dataset import load_questions, replay_order
    from bot.evaluation.metrics import format_summary, summarize
    from bot.evaluation.runner import run_questions, write_results

    if str(args.dir[0]) == "compare":
        return compare_runs(list(args.dir[1:]))
    if len(args.dir) != 1 or args.out is None:
        print("error: usage: ragbot eval DIR --kb NAME --out RESULTS.jsonl", file=sys.stderr)
        return 2
    folder: Path = args.dir[0].expanduser()
    kb = args.kb or folder.resolve().name
    if args.split_kbs is not None and (args.retrieval_only or args.kb):
        print("error: --split-kbs names its own KBs and measures the router, which only the "
              "answers mode runs: drop --kb and --retrieval-only", file=sys.stderr)
        return 2
    questions = load_questions(folder / "questions.jsonl")
    if args.limit is not None:
        questions = replay_order(questions)[: max(0, args.limit)]
    kb, split = _prepare_corpus(args, ctx, folder, kb)
    step = build_step(args, ctx, kb)
    by_id = {q.id: q for q in questions}
    records = ({**r, "scores": scores(r, by_id[r["id"]])}
               for r in run_questions(questions, step))
    results = write_results(records, args.out)
    _record_history(args, ctx, folder, kb, results)
    summary = summarize(results, {q.id: q.gold_doc_ids for q in questions},
                        {q.id: q.kind for q in questions})
    routing = None
    if split is not None:
        from bot.evaluation.split import routing_accuracy

        routing = routing_accuracy(results, questions, split.doc_kb)
    if args.json:
        if not args.retrieval_only:
            summary["answers"] = answer_summary(results)
        if routing is not None:
            summary["routing"] = routing
        print(json.dumps(summary, indent=2))
    else:
        print(f"{len(results)} questions -> {args.out}")
        print(format_summary(summary))
        if not args.retrieval_only:
            print()
            print(format_answer_summary(answer_summary(results)))
        if routing is not None:
            from bot.evaluation.split import format_routing

            print()
            print(format_routing(routing))
    return 0
