"""``ragbot serve``: the Slack bot (Socket Mode when SLACK_APP_TOKEN is set, else HTTP)."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.context import AppContext


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "serve", help="run the Slack bot (Socket Mode with SLACK_APP_TOKEN, else HTTP)")
    parser.add_argument("--kb", default=None,
                        help="knowledge base that answers (default: RAGBOT_KB or 'default'); "
                             "RAGBOT_CHANNEL_KBS=C123=hr,C456=eng maps channels to others")
    parser.add_argument("--http", action="store_true",
                        help="serve HTTP even when SLACK_APP_TOKEN is set")
    parser.add_argument("--host", default="0.0.0.0", help="HTTP bind address")  # noqa: S104
    parser.add_argument("--port", type=int, default=3000,
                        help="HTTP port; Slack posts to http(s)://HOST:PORT/slack/events")
    parser.add_argument("--workers", type=int, default=4,
                        help="questions answered at once (the rest wait their turn)")
    parser.set_defaults(handler=handle)


def _missing(ctx: AppContext, http: bool) -> list[str]:
    s = ctx.settings
    missing = [] if s.slack_bot_token else ["SLACK_BOT_TOKEN (Bot User OAuth Token, xoxb-…)"]
    if http and not s.slack_signing_secret:
        missing.append("SLACK_SIGNING_SECRET (Basic Information > Signing Secret)")
    return missing


def handle(args: argparse.Namespace, ctx: AppContext) -> int:
    import structlog

    from agent.api import build_agent
    from agent.factory import engine_from_settings
    from bot.jobs import JobQueue
    from bot.slack.app import create_deps
    from bot.slack.listeners.commands import start_job_worker
    from bot.slack.service import SlackService
    from store.db import open_pool
    from store.embedding import serving_threads

    serving_threads()
    log = structlog.get_logger("ragbot.serve")
    http = args.http or not ctx.settings.slack_app_token
    missing = _missing(ctx, http)
    if missing:
        print("error: set " + " and ".join(missing) + " (see README: Slack app)",
              file=sys.stderr)
        return 2
    settings = ctx.settings
    if http and settings.slack_app_token:  # --http wins over SLACK_APP_TOKEN
        settings = settings.model_copy(update={"slack_app_token": None})
    # every HTTP request thread, listener and agent turn may hold a connection at once
    pool = open_pool(ctx.database_url, max_size=args.workers * 3 + 16)
    agent = build_agent(pool, ctx.embedder, engine=engine_from_settings(settings))
    deps = create_deps(settings, pool=pool, agent=agent, kb=args.kb,
                       embedder=ctx.embedder, work_workers=args.workers,
                       jobs=JobQueue(ctx.pool), ctx=ctx)
    service = SlackService(deps)
    # reindex jobs run in this process too; more workers can join on the same database
    worker = start_job_worker(ctx.database_url, ctx.pool, ctx.embedder, deps.client)
    signal.signal(signal.SIGTERM, _interrupt)  # docker stop: finish in-flight turns
    log.info("serve_starting", mode="http" if http else "socket_mode", kb=deps.default_kb,
             channel_kbs=len(deps.channel_kbs))
    try:
        if http:
            service.start_http(args.host, args.port, background=False)
        else:
            service.start_socket_mode()
    except KeyboardInterrupt:
        pass
    finally:
        service.stop()
        worker.stop()
        agent.close()
        pool.close()
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
