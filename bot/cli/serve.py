"""``ragbot serve``: the Slack bot (Socket Mode when SLACK_APP_TOKEN is set, else HTTP)."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.context import AppContext
    from bot.settings import Settings


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
    import shutil
    import tempfile
    from pathlib import Path

    import structlog

    from bot.http.metrics import enable_multiprocess
    from bot.jobs import JobQueue
    from bot.slack.app import create_process_deps
    from bot.slack.service import SlackService
    from bot.slack.worker import real_agent
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
    # Figures are counted in this process and in the worker processes: each writes its own
    # file here, /metrics sums them. Set before any metric exists or worker starts.
    metrics_dir = Path(tempfile.mkdtemp(prefix="ragbot-metrics-"))
    enable_multiprocess(metrics_dir)
    # Agent turns run in worker processes with their own pools and models; this process
    # only acknowledges Slack's requests (request threads, listeners, maintenance) and
    # posts first status lines, so its pool serves those.
    pool = open_pool(ctx.database_url, min_size=4, max_size=32)
    deps = create_process_deps(settings, pool=pool, database_url=ctx.database_url,
                               workers=workers, kb=args.kb, jobs=JobQueue(ctx.pool), ctx=ctx)
    from slack_sdk.errors import SlackClientError

    try:
        # Bolt checks the token with auth.test here
        service = SlackService(deps, metrics_dir=metrics_dir,
                               api_agent=lambda: real_agent(pool, ctx.embedder, deps.settings))
    except (OSError, SlackClientError) as exc:
        pool.close()
        shutil.rmtree(metrics_dir, ignore_errors=True)
        print(f"error: {slack_start_failure(exc, settings)}", file=sys.stderr)
        return 2
    # reindex jobs run beside it, in a process of their own (more can join: ragbot worker)
    jobs = _start_job_process(settings, ctx.database_url)
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
        jobs.terminate()  # SIGTERM: the job worker stops as `ragbot worker` does
        jobs.join(30)
        pool.close()
        shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def slack_start_failure(exc: BaseException, settings: Settings) -> str:
    """One line saying what failed when the bot first talks to Slack, and what to check."""
    from slack_sdk.errors import SlackApiError

    api = settings.slack_api_url
    if isinstance(exc, SlackApiError):
        code = exc.response.get("error") if exc.response is not None else None
        return (f"Slack refused the bot token at startup (auth.test: {code or exc}); check "
                "SLACK_BOT_TOKEN (Bot User OAuth Token, xoxb-…) and that the app is installed "
                "in the workspace")
    reason = getattr(exc, "reason", None) or exc
    return (f"cannot reach the Slack Web API at {api} ({type(exc).__name__}: {reason}); check "
            "this machine's network access to Slack, any HTTPS proxy (HTTPS_PROXY), and "
            "SLACK_API_URL")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _start_job_process(settings: Settings, database_url: str) -> Any:
    """Start ``ragbot worker`` in a child process: a reindex embeds a whole knowledge base,
    CPU work that must not hold up the acks this process owes Slack."""
    import logging
    import multiprocessing

    level = logging.getLevelName(logging.getLogger().getEffectiveLevel())
    proc = multiprocessing.get_context("spawn").Process(
        target=_job_process, args=(settings, database_url, level), name="ragbot-jobs")
    proc.start()
    return proc


def _job_process(settings: Settings, database_url: str, log_level: str) -> None:
    """The job worker process (ends with the process that started it)."""
    from pydantic import SecretStr

    from bot.cli import worker as worker_cli
    from bot.context import AppContext
    from bot.logging_setup import configure_logging
    from bot.slack.worker import exit_with_parent

    configure_logging(log_level, settings.log_format)
    exit_with_parent()
    ctx = AppContext(settings.model_copy(update={"database_url": SecretStr(database_url)}))
    try:
        worker_cli.handle(argparse.Namespace(once=False), ctx)
    finally:
        ctx.close()
