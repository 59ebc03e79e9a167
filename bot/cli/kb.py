"""``ragbot kb list`` and ``ragbot kb status NAME``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.context import AppContext


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("kb", help="list knowledge bases or show one's status")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    lister = actions.add_parser("list", help="every knowledge base with its size and model")
    lister.add_argument("--json", action="store_true", help="one JSON array")
    lister.set_defaults(handler=run_list)
    status = actions.add_parser("status", help="documents, chunks, model, generation, "
                                "sources and last ingest of one knowledge base")
    status.add_argument("name", metavar="NAME")
    status.add_argument("--json", action="store_true", help="one JSON object")
    status.set_defaults(handler=run_status)
    describe = actions.add_parser("describe", help="set what a knowledge base is about (the "
                                  "router reads it to pick which KBs answer a question)")
    describe.add_argument("name", metavar="NAME")
    describe.add_argument("text", metavar="TEXT",
                          help='one or two sentences, e.g. "HR policies: leave, pay, travel"; '
                          '"" clears it (the derived summary is used instead)')
    describe.set_defaults(handler=run_describe)


def kb_set_argument(text: str) -> str:
    """``--kb`` of ask, chat, serve and eval: one KB or several (``hr,it`` or ``hr+it``),
    as the set's key."""
    from store.kbset import kb_set_key, parse_kb_set

    try:
        return kb_set_key(parse_kb_set(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _statuses(ctx: AppContext) -> list[dict[str, Any]]:
    from store.kb import kb_status, list_kbs

    with ctx.pool.connection() as conn:
        return [kb_status(conn, kb.name) for kb in list_kbs(conn)]


def _when(value: str | None) -> str:
    return value[:19].replace("T", " ") + " UTC" if value else "never"


def format_table(rows: list[dict[str, Any]]) -> str:
    """A fixed-width table of KB statuses (plain text: fine in logs and pipes)."""
    header = ("NAME", "MODEL", "DOCS", "CHUNKS", "GEN", "LAST INGEST", "ABOUT")
    lines = [header] + [
        (r["name"], f"{r['embed_model']} ({r['embed_dim']})", str(r["documents"]),
         str(r["chunks"]), str(r["generation"]), _when(r["last_ingest_at"]), _about(r))
        for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True))
                     .rstrip() for line in lines)


def _about(status: dict[str, Any], limit: int = 60) -> str:
    """The description, else the derived summary marked "(derived)", shortened."""
    text = status["description"] or (f"(derived) {status['summary']}" if status["summary"]
                                      else "-")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_describe(args: argparse.Namespace, ctx: AppContext) -> int:
    from store.kb_profile import set_description

    with ctx.pool.connection() as conn:
        try:
            set_description(conn, args.name, args.text)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    print(f"{args.name}: " + (f"described as {' '.join(args.text.split())!r}" if args.text.strip()
                              else "description cleared (the derived summary is used)"))
    return 0


def run_list(args: argparse.Namespace, ctx: AppContext) -> int:
    rows = _statuses(ctx)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    elif not rows:
        print("no knowledge bases yet; create one with `ragbot ingest PATH --kb NAME`")
    else:
        print(format_table(rows))
    return 0


def run_status(args: argparse.Namespace, ctx: AppContext) -> int:
    from store.kb import kb_status

    with ctx.pool.connection() as conn:
        status = kb_status(conn, args.name)  # KnowledgeBaseNotFoundError names the fix
    if args.json:
        print(json.dumps(status, ensure_ascii=False, indent=2))
        return 0
    print(f"knowledge base  {status['name']}")
    print(f"model           {status['embed_model']} ({status['embed_dim']} dimensions, "
          f"{status['embed_backend']} backend)")
    print(f"description     {status['description'] or '- (set one: ragbot kb describe NAME TEXT)'}")
    print(f"summary         {status['summary'] or '-'} (derived at ingest)")
    print(f"generation      {status['generation']}")
    print(f"documents       {status['documents']} "
          f"(+{status['archived_versions']} archived versions)")
    print(f"chunks          {status['chunks']}")
    print(f"last ingest     {_when(status['last_ingest_at'])}")
    print(f"created         {_when(status['created_at'])}")
    cache = status["answer_cache"]
    rate = f"{cache['hits'] / cache['lookups']:.0%}" if cache["lookups"] else "-"
    print(f"answer cache    {rate} hits ({cache['hits']} of {cache['lookups']} lookups), "
          f"{cache['entries']} answers kept")
    for span in status["suspicious"]:  # instructions in documents: never quoted in answers
        print(f"suspicious      {span['source']}: {span['text'][:120]}")
    for source in status["sources"]:
        extra = ", ".join(f"{k}={v}" for k, v in source.items() if k != "path" and v)
        print(f"source          {source['path']}" + (f" ({extra})" if extra else ""))
    return 0
