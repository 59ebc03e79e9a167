"""``ragbot ask``: one question, one answer (optionally a turn of a thread)."""

from __future__ import annotations

import argparse
import json
import uuid
from typing import TYPE_CHECKING

from bot.cli.kb import kb_set_argument

if TYPE_CHECKING:
    from bot.context import AppContext


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("ask", help="answer one question from a knowledge base")
    parser.add_argument("question", help="the question, in Chinese or English")
    parser.add_argument("--kb", default=None, type=kb_set_argument, metavar="KB[,KB...]",
                        help="knowledge base, or several: hr,it,eng (the router picks among them; "
                        "default: RAGBOT_KB)")
    parser.add_argument("--thread", default=None,
                        help="conversation id: later asks with the same id are follow-ups")
    parser.add_argument("--principal", action="append", default=None, metavar="P",
                        help="access principal, e.g. user:U123 (repeatable; public always)")
    parser.add_argument("--reply", default=None,
                        help="answer the thread's pending clarification with this text")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=handle)


def build_cli_agent(ctx: AppContext):  # type: ignore[no-untyped-def]
    """The agent the terminal commands use (engine chosen by settings)."""
    from agent.api import build_agent
    from agent.factory import config_from_settings, engine_from_settings, translator_from_settings

    return build_agent(ctx.pool, ctx.embedder, engine=engine_from_settings(ctx.settings),
                       config=config_from_settings(ctx.settings),
                       translator=translator_from_settings(ctx.settings))


def handle(args: argparse.Namespace, ctx: AppContext) -> int:
    from agent.api import Question
    from bot.cli.deadline import within_deadline

    kb = args.kb or ctx.settings.default_kb
    thread = args.thread or f"cli:{uuid.uuid4().hex}"
    principals = tuple(dict.fromkeys(["public", *(args.principal or [])]))
    agent = build_cli_agent(ctx)
    try:
        q = Question(text=args.question, thread_id=thread, kb=kb, principals=principals)
        result = within_deadline(
            lambda: agent.resume(q, args.reply) if args.reply else agent.ask(q),
            ctx.settings.turn_timeout_s)
    finally:
        agent.close()
    if args.json:
        out = result.to_json()
        out["thread_id"] = thread
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(result.text)
    if result.clarification:
        for i, option in enumerate(result.clarification.options, start=1):
            print(f"  {i}. {option}")
        print(f"(reply with: ragbot ask ... --thread {thread} --reply TEXT)")
    for c in result.citations:
        kb = f" [{c.kb}]" if c.kb else ""
        print(f"[{c.n}] {c.title}{kb} — {c.source}")
    return 0
