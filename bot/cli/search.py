"""``ragbot search "QUERY" --kb NAME``: hybrid search, as JSON or a readable table."""

from __future__ import annotations

import argparse
import json
import shutil
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.context import AppContext
    from store.types import Hit


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("search", help="hybrid (dense + keyword) search of a knowledge base",
                            description="Hybrid search: dense and keyword rankings fused by "
                            "RRF, filters and access lists applied before ranking.")
    parser.add_argument("query", metavar="QUERY")
    parser.add_argument("--kb", default=None, help="knowledge base (default RAGBOT_KB or "
                        "'default')")
    parser.add_argument("--k", type=int, default=10, help="number of chunks (default 10)")
    parser.add_argument("--doc-type", action="append", default=[], metavar="T",
                        help="only documents of this doc_type (repeatable)")
    parser.add_argument("--source", action="append", default=[], metavar="S",
                        help="only this source, or sources under this folder/corpus "
                        "(repeatable)")
    parser.add_argument("--updated-after", type=parse_date, default=None, metavar="DATE",
                        help="only documents updated after DATE (ISO 8601, e.g. 2026-01-31)")
    parser.add_argument("--principal", action="append", default=[], metavar="P",
                        help="search as this principal (user:ID, channel:ID, group:ID; "
                        "repeatable); public documents are always visible")
    parser.add_argument("--rerank", action="store_true",
                        help="re-score with the cross-encoder in RAGBOT_RERANKER")
    parser.add_argument("--json", action="store_true", help="a JSON list of hits")
    add_fusion_argument(parser)
    parser.set_defaults(handler=run)


def add_fusion_argument(parser: argparse.ArgumentParser) -> None:
    """Hidden debug switch: which rankings to fuse (for reproducible measurements)."""
    from store.fusion import FUSION_MODES

    parser.add_argument("--fusion", choices=FUSION_MODES, default="auto",
                        help=argparse.SUPPRESS)


def parse_date(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an ISO date; write e.g. 2026-01-31 or 2026-01-31T09:00") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def load_reranker_from(ctx: AppContext):  # type: ignore[no-untyped-def]
    """The reranker configured in settings; a StoreError naming the fix when unset."""
    from store.errors import StoreError
    from store.rerank import load_reranker

    name = ctx.settings.reranker
    if not name:
        raise StoreError("--rerank needs a cross-encoder: set RAGBOT_RERANKER to its name "
                         "(e.g. BAAI/bge-reranker-base) and RAGBOT_RERANKER_PATH to a local "
                         "folder with its weights")
    return load_reranker(name, ctx.settings.reranker_path)


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from store.search import search
    from store.types import PUBLIC, SearchFilters

    if args.k <= 0:
        raise SystemExit("error: --k must be a positive number")
    filters = SearchFilters(doc_types=tuple(args.doc_type), sources=tuple(args.source),
                            updated_after=args.updated_after)
    principals = (PUBLIC, *(p for p in args.principal if p != PUBLIC))
    reranker = load_reranker_from(ctx) if args.rerank else None
    hits = search(ctx.pool, args.kb or ctx.settings.default_kb, args.query,
                  embedder=ctx.embedder, k=args.k, filters=filters, principals=principals,
                  reranker=reranker, fusion=args.fusion)
    if args.json:
        print(json.dumps([h.to_json() for h in hits], ensure_ascii=False, indent=2))
    else:
        print(format_hits(hits))
    return 0


def format_hits(hits: list[Hit], width: int | None = None) -> str:
    """A readable table: rank, score, sides' ranks, title, source, and a text snippet."""
    if not hits:
        return "no results"
    width = width or shutil.get_terminal_size((100, 20)).columns
    lines: list[str] = []
    for rank, h in enumerate(hits, start=1):
        sides = f"dense {h.dense_rank or '-'} / keyword {h.keyword_rank or '-'}"
        heading = " > ".join(h.heading_path)
        lines.append(f"{rank:>2}. {h.title}  [{h.doc_type}]  score {h.score:.4f} ({sides})")
        lines.append(f"    {h.source}  doc {h.doc_id}  chunk {h.chunk_id}"
                     + (f"  § {heading}" if heading else ""))
        snippet = " ".join(h.text.split())
        limit = max(40, width - 6)
        lines.append("    " + (snippet[:limit - 1] + "…" if len(snippet) > limit else snippet))
    return "\n".join(lines)
