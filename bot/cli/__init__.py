"""The ``ragbot`` command line.

Each subcommand lives in its own module under ``bot.cli`` with a
``register(subparsers)`` that adds its parser and sets ``handler(args, ctx) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

import structlog

from bot.logging_setup import configure_logging
from bot.settings import Settings

# Order here is the order in `ragbot --help`.
COMMAND_MODULES = [
    "ingest",
    "search",
    "kb",
    "reindex",
    "ask",
    "chat",
    "trace",
    "eval",
    "feedback",
    "report",
    "worker",
    "serve",
    "teams",
    "db",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragbot",
        description="Agentic RAG knowledge-base bot: ingest documents, search, ask, chat, "
        "evaluate, and serve Slack.",
        epilog="Exit status: 0 done; 1 some items failed (the others were done); 2 error "
        "(nothing was done: the message names the fix).",
    )
    parser.add_argument("--log-level", default=None, help="DEBUG, INFO, WARNING (default INFO)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"bot.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from agent.errors import AgentError
    from bot.context import AppContext
    from store.errors import StoreError

    args = build_parser().parse_args(argv)
    settings = Settings()
    level = args.log_level or settings.log_level
    if getattr(args, "interactive", False) and not args.log_level \
            and "RAGBOT_LOG_LEVEL" not in os.environ:
        level = "WARNING"
    configure_logging(level, settings.log_format)
    ctx = AppContext(settings)
    try:
        return int(args.handler(args, ctx))
    except (StoreError, AgentError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`ragbot ... | head`): stop quietly, and keep Python from
        # reporting the same broken pipe again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # what a shell reports for a process ended by SIGPIPE
    except Exception:
        structlog.get_logger("ragbot").exception("command_failed", command=args.command)
        return 2
    finally:
        ctx.close()


if __name__ == "__main__":
    sys.exit(main())
