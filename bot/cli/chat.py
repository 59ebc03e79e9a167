"""``ragbot chat``: a terminal conversation in one thread, with a live stage line."""

from __future__ import annotations

import argparse
import uuid
from functools import partial
from typing import TYPE_CHECKING

from bot.cli.kb import kb_set_argument

if TYPE_CHECKING:
    from rich.console import Console

    from agent.api import AnswerResult
    from bot.context import AppContext

_EXIT = {"exit", "quit", "/exit", "/quit", "退出"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("chat", help="talk to a knowledge base in the terminal")
    parser.add_argument("--kb", default=None, type=kb_set_argument, metavar="KB[,KB...]",
                        help="knowledge base, or several: hr,it,eng (the router picks among them; "
                        "default: RAGBOT_KB)")
    parser.add_argument("--thread", default=None, help="continue this conversation id")
    parser.add_argument("--principal", action="append", default=None, metavar="P",
                        help="access principal, e.g. user:U123 (repeatable; public always)")
    # A conversation on the terminal: per-turn log lines would interleave with the answers.
    parser.set_defaults(handler=handle, interactive=True)


def show_answer(console: Console, result: AnswerResult) -> None:
    """The answer, its numbered sources, and the trace id to look it up."""
    from rich.markup import escape

    if result.clarification is not None:
        console.print(f"[bold yellow]?[/] {escape(result.clarification.question)}")
        for i, option in enumerate(result.clarification.options, start=1):
            console.print(f"   [cyan]{i}[/]. {escape(option)}")
        console.print("   [dim](type a number or your own words)[/]")
        return
    style = "yellow" if result.refused else ""
    console.print(escape(result.text), style=style)
    for c in result.citations:
        kb = " " + escape(f"[{c.kb}]") if c.kb else ""
        console.print(f"  [dim][{c.n}] {escape(c.title)}{kb} — {escape(c.source)}[/]")
    console.print(f"  [dim]{result.route}, {result.rounds} round(s), "
                  f"{result.latency_ms:.0f} ms, trace {result.trace_id}[/]")


def handle(args: argparse.Namespace, ctx: AppContext) -> int:
    from rich.console import Console
    from rich.markup import escape

    from agent.api import Question, StageEvent
    from agent.errors import QuestionTooLongError, TurnTimeoutError
    from bot.cli.ask import build_cli_agent
    from bot.cli.deadline import TurnAbandonedError, within_deadline

    console = Console()
    kb = args.kb or ctx.settings.default_kb
    thread = args.thread or f"chat:{uuid.uuid4().hex}"
    principals = tuple(dict.fromkeys(["public", *(args.principal or [])]))
    with console.status("loading…"):
        agent = build_cli_agent(ctx)
    console.print(f"[bold]ragbot[/] · knowledge base [cyan]{kb}[/] · thread {thread}\n"
                  "[dim]Ask in Chinese or English; Ctrl-D or 'exit' to leave.[/]")
    pending: tuple[str, ...] | None = None  # options of a clarification we wait on
    try:
        while True:
            try:
                text = console.input("[bold green]> [/]").strip()
            except EOFError:
                console.print()
                break
            if not text:
                continue
            if text.lower() in _EXIT:
                break
            q = Question(text=text, thread_id=thread, kb=kb, principals=principals)
            with console.status("…") as status:
                def on_stage(event: StageEvent, status=status) -> None:  # type: ignore[no-untyped-def]
                    status.update(event.message)

                reply = text
                if pending is not None and text.isdigit() and 1 <= int(text) <= len(pending):
                    reply = pending[int(text) - 1]
                try:
                    call = (partial(agent.resume, q, reply, on_stage=on_stage)
                            if pending is not None else partial(agent.ask, q, on_stage=on_stage))
                    result = within_deadline(call, ctx.settings.turn_timeout_s)
                except TurnAbandonedError:
                    raise  # still running: a new question in this thread would wait on it
                except (TurnTimeoutError, QuestionTooLongError) as exc:
                    # The asker is told and asks again; the session goes on.
                    console.print(f"[red]{escape(str(exc))}[/]")
                    continue
            pending = result.clarification.options if result.clarification else None
            show_answer(console, result)
    finally:
        agent.close()
    return 0
