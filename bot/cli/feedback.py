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
        description="Write 👍 answers as questions.jsonl lines (standalone question, cited "
        "documents as gold) and 👎 answers with their traces to a review file. With --out-dir, "
        "also write the KB's latest documents as corpus.jsonl so that `ragbot eval DIR` runs on "
        "the export (into a KB named after DIR), or `ragbot eval DIR --kb KB --no-ingest` "
        "on the live KB.",
    )
    export.add_argument("--out", type=Path, help="questions file (.jsonl)")
    export.add_argument("--review", type=Path,
                        help="👎 answers with their traces (.jsonl); default: beside the "
                        "questions, named review.jsonl")
    export.add_argument("--since", type=_since, help="only votes cast on or after this date")
    export.add_argument("--out-dir", type=Path,
                        help="write DIR/questions.jsonl, DIR/corpus.jsonl, DIR/review.jsonl")
    export.add_argument("--kb", default=None,
                        help="knowledge base whose documents go to corpus.jsonl (with "
                        "--out-dir; default RAGBOT_KB or 'default')")
    export.set_defaults(handler=_export)


def _export(args: argparse.Namespace, ctx: AppContext) -> int:
    from store import feedback
    from store.kb import get_kb

    if args.out is None and args.out_dir is None:
        print("error: give --out FILE.jsonl or --out-dir DIR", file=sys.stderr)
        return 2
    out: Path = args.out or args.out_dir / "questions.jsonl"
    review: Path = args.review or out.with_name("review.jsonl")
    for path in (out, review):
        path.parent.mkdir(parents=True, exist_ok=True)
    kb = args.kb or ctx.settings.default_kb
    with ctx.pool.connection() as conn:
        if args.out_dir is not None:
            get_kb(conn, kb)  # a missing KB is an error naming the fix, before any file
        result = feedback.export(conn, since=args.since)
        n_questions = feedback.write_jsonl(str(out), result.questions)
        n_review = feedback.write_jsonl(str(review), result.review)
        print(f"{n_questions} questions (👍) -> {out}")
        print(f"{n_review} answers to review (👎) -> {review}")
        if args.out_dir is not None:
            corpus = args.out_dir / "corpus.jsonl"
            n_docs = feedback.write_jsonl(str(corpus), feedback.latest_documents(conn, kb))
            print(f"{n_docs} documents of {kb!r} -> {corpus}")
            results = args.out_dir / "results.jsonl"
            print(f"evaluate on a copy of the documents (KB {args.out_dir.resolve().name!r}): "
                  f"ragbot eval {args.out_dir} --out {results}")
            print(f"or on the live KB as it is: ragbot eval {args.out_dir} --kb {kb} "
                  f"--no-ingest --out {results}")
    return 0
