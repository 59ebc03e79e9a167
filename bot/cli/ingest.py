"""``ragbot ingest PATH... --kb NAME``: read documents into a knowledge base."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli.progress import progress_bar

if TYPE_CHECKING:
    from bot.context import AppContext

_EPILOG = """\
Inputs: folders (recursively), .md (YAML front matter: title, doc_type, acl), .txt, .html,
.pdf, .docx, and .jsonl corpora ({"id", "title", "text", "metadata": {"doc_type", "source",
"acl", "format"}} per line; format "markdown" chunks the text by its headings). --doc-type
and --acl are defaults: a document's own front matter or corpus metadata wins; documents with
neither are public with doc_type "document". --max-file-mb applies per file, and per line of
a .jsonl corpus. A PDF over RAGBOT_MAX_PDF_PAGES pages (default 2000), a .docx that unpacks
to over 100 MB, HTML over 100,000 elements or 256 levels deep, and front matter over 64 KB
or with over 8 YAML aliases are refused as that file's failure.
Unchanged documents are skipped; a changed one gets a new version and the old is archived.
A document that already has a restricted access list keeps it when this ingest sets none
for it (a note says so): only --acl, or acl in its front matter or metadata, replaces it.
Exit status: 0 all ingested, 1 some items failed (the others are committed), 2 error.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "ingest", help="ingest files, folders and .jsonl corpora into a knowledge base",
        description="Ingest documents into a knowledge base.", epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="file, folder or .jsonl corpus")
    parser.add_argument("--kb", default=None, help="knowledge base name (default: RAGBOT_KB or "
                        "'default'); created on first ingest")
    parser.add_argument("--doc-type", default=None,
                        help="doc_type for documents that do not set one")
    parser.add_argument("--acl", nargs="+", default=None, metavar="PRINCIPAL",
                        help="readers for documents that do not set their own: public, "
                        "user:ID, channel:ID, group:ID (default public)")
    parser.add_argument("--prune", action="store_true",
                        help="archive documents whose file left an ingested folder or whose id "
                        "left an ingested corpus")
    parser.add_argument("--max-file-mb", type=float, default=None, metavar="N",
                        help="skip (with an error) files, or corpus lines, larger than N MB "
                        "(default RAGBOT_MAX_FILE_MB or 20)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from store.ingest import ingest_paths

    missing = [p for p in args.paths if not Path(p).expanduser().exists()]
    if missing:  # a typo in a path is a usage error: nothing is ingested, no KB is created
        for path in missing:
            print(f"error: {path}: no such file or folder (check the path)", file=sys.stderr)
        return 2
    kb = args.kb or ctx.settings.default_kb
    max_bytes = (int(args.max_file_mb * 1024 * 1024) if args.max_file_mb is not None
                 else ctx.settings.max_file_bytes)
    if max_bytes <= 0:
        print("error: --max-file-mb must be positive", file=sys.stderr)
        return 2
    try:
        with progress_bar(not args.no_progress, "ingesting") as on_progress:
            report = ingest_paths(
                ctx.pool, kb, args.paths, embedder=ctx.embedder, doc_type=args.doc_type,
                acl=args.acl, prune=args.prune, max_file_bytes=max_bytes,
                max_pdf_pages=ctx.settings.max_pdf_pages,
                progress=on_progress is not None, on_progress=on_progress)
    except ValueError as exc:  # a bad --acl entry or KB name
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in report.notes:
        print(f"note: {line}")
    for line in report.errors:
        print(f"error: {line}", file=sys.stderr)
    for line in report.notices:
        print(f"note: {line}", file=sys.stderr)
    print(f"{kb}: {report.summary()}")
    return 1 if report.failed else 0
