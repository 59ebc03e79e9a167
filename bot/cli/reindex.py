"""``ragbot reindex --kb NAME``: re-read a KB's sources and re-embed them, then switch."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from bot.cli.progress import progress_bar

if TYPE_CHECKING:
    from bot.context import AppContext

_EPILOG = """\
The new generation is built beside the active one with the configured embedding model
(RAGBOT_EMBED_MODEL); searches keep answering from the old generation until one transaction
switches to the new one. If the build fails or is interrupted the knowledge base is unchanged.
Run it after changing the embedding model, or to pick up changed sources in one go.
A source that is missing or fails, and a file that no longer reads, is listed and skipped:
its documents keep their current version (and access list) in the new generation.
Exit status: 0 switched, 1 switched with items skipped (listed), 2 error (nothing changed).
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "reindex", help="re-embed a knowledge base into a new generation and switch to it",
        description="Re-read a knowledge base's recorded sources and re-embed them.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", default=None,
                        help="knowledge base name (default: RAGBOT_KB or 'default')")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from store.reindex import reindex

    kb = args.kb or ctx.settings.default_kb
    with progress_bar(not args.no_progress, "reindexing") as update:
        on_progress = None if update is None else (
            lambda event: update(event.done, event.total, event.stage))
        report = reindex(ctx.pool, kb, embedder=ctx.embedder, on_progress=on_progress,
                         max_file_bytes=ctx.settings.max_file_bytes,
                         max_pdf_pages=ctx.settings.max_pdf_pages)
    print(f"reindexed {kb}: {report.summary()}")
    for line in report.errors:
        print(f"  skipped: {line}", file=sys.stderr)
    return 1 if report.failed else 0
