"""``ragbot feedback export``: 👍 answers as evaluation questions, 👎 answers for review."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.context import AppContext


def _since(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        try:
            parsed = datetime.combine(date.fromisoformat(value), datetime.min.time())
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"--since {value!r} is not a date; use YYYY-MM-DD or an ISO timestamp"
            ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("feedback", help="export 👍/👎 feedback from Slack")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    export = actions.add_parser(
        "export",
        help="👍 answers as eval questions (dataset format), 👎 answers to a review file",
        description="Write 👍 answers as dataset questions (standalone question, cited "
        "documents as gold), 👎 answers with their traces for review, and the KB's latest "
        "documents as a corpus, so that `ragbot eval` runs on the export.",
        epilog="--out FILE.jsonl writes the questions to FILE.jsonl and, beside it, "
        "FILE-review.jsonl and FILE-corpus.jsonl. --out-dir DIR writes DIR/questions.jsonl, "
        "DIR/review.jsonl and DIR/corpus.jsonl (a dataset folder: `ragbot eval DIR`).",
    )
    where = export.add_mutually_exclusive_group()
    where.add_argument("--out", type=Path, metavar="FILE.jsonl",
                       help="questions file; review and corpus files go beside it")
    where.add_argument("--out-dir", type=Path, metavar="DIR",
                       help="write DIR/questions.jsonl, DIR/review.jsonl, DIR/corpus.jsonl")
    export.add_argument("--since", type=_since, help="only votes cast on or after this date")
    export.add_argument("--kb", default=None,
                        help="knowledge base whose documents go to the corpus file "
                        "(default RAGBOT_KB or 'default')")
    export.set_defaults(handler=_export)


def export_paths(out: Path | None, out_dir: Path | None) -> tuple[Path, Path, Path]:
    """Questions, review and corpus files for ``--out FILE.jsonl`` or ``--out-dir DIR``."""
    if out_dir is not None:
        return out_dir / "questions.jsonl", out_dir / "review.jsonl", out_dir / "corpus.jsonl"
    if out is None:
        raise ValueError("give --out FILE.jsonl or --out-dir DIR")
    stem = out.name.removesuffix(".jsonl")
    return out, out.with_name(f"{stem}-review.jsonl"), out.with_name(f"{stem}-corpus.jsonl")


def _export(args: argparse.Namespace, ctx: AppContext) -> int:
    from store import feedback
    from store.kb import get_kb

    try:
        out, review, corpus = export_paths(args.out, args.out_dir)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    kb = args.kb or ctx.settings.default_kb
    with ctx.pool.connection() as conn:
        get_kb(conn, kb)  # a missing KB is an error naming the fix, before any file
        result = feedback.export(conn, since=args.since)
        for path in (out, review, corpus):
            path.parent.mkdir(parents=True, exist_ok=True)
        n_questions = feedback.write_jsonl(str(out), result.questions)
        n_review = feedback.write_jsonl(str(review), result.review)
        n_docs = feedback.write_jsonl(str(corpus), feedback.latest_documents(conn, kb))
    print(f"{n_questions} questions (👍) -> {out}")
    print(f"{n_review} answers to review (👎) -> {review}")
    print(f"{n_docs} documents of {kb!r} -> {corpus}")
    if args.out_dir is not None:
        results = args.out_dir / "results.jsonl"
        print(f"evaluate on a copy of the documents (KB {args.out_dir.resolve().name!r}): "
              f"ragbot eval {args.out_dir} --out {results}")
        print(f"or on the live KB as it is: ragbot eval {args.out_dir} --kb {kb} "
              f"--no-ingest --out {results}")
    return 0
