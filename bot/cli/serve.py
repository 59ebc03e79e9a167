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
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes answering questions at once, the rest wait "
                             "their turn (default: RAGBOT_SLACK_WORKERS, else two per core "
                             "up to 8)")
    parser.set_defaults(handler=handle)


def _missing(ctx: AppContext, http: bool) -> list[str]:
    s = ctx.settings
    missing = [] if s.slack_bot_token else ["SLACK_BOT_TOKEN (Bot User OAuth Token, xoxb-…)"]
    if http and not s.slack_signing_secret:
        missing.append("SLACK_SIGNING_SECRET (Basic Information > Signing Secret)")
    return missing


def handle(args: argparse.Namespace, ctx: AppContext) -> int:
    import structlog

    from bot.jobs import JobQueue
    from bot.slack.app import create_process_deps
    from bot.slack.listeners.commands import start_job_worker
    from bot.slack.service import SlackService
    from store.db import open_pool

    log = structlog.get_logger("ragbot.serve")
    http = args.http or not ctx.settings.slack_app_token
    missing = _missing(ctx, http)
    if missing:
        print("error: set " + " and ".join(missing) + " (see README: Slack app)",
              file=sys.stderr)
        return 2
    workers = ctx.settings.slack_workers if args.workers is None else args.workers
    if workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    settings = ctx.settings
    if http and settings.slack_app_token:  # --http wins over SLACK_APP_TOKEN
        settings = settings.model_copy(update={"slack_app_token": None})
    # Agent turns run in worker processes with their own pools and models; this process
    # only acknowledges Slack's requests (request threads, listeners, maintenance) and
    # posts first status lines, so its pool serves those.
    pool = open_pool(ctx.database_url, min_size=4, max_size=32)
    deps = create_process_deps(settings, pool=pool, database_url=ctx.database_url,
                               workers=workers, kb=args.kb, jobs=JobQueue(ctx.pool), ctx=ctx)
    service = SlackService(deps)
    # reindex jobs run in this process; more workers can join on the same database
    worker = start_job_worker(ctx.database_url, ctx.pool, ctx.embedder, deps.client)
    signal.signal(signal.SIGTERM, _interrupt)  # docker stop: finish in-flight turns
    log.info("serve_starting", mode="http" if http else "socket_mode", kb=deps.default_kb,
             channel_kbs=len(deps.channel_kbs), workers=workers)
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
        pool.close()
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
