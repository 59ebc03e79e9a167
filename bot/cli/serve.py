"""``ragbot serve``: the Slack bot (Socket Mode when SLACK_APP_TOKEN is set, else HTTP),
with Microsoft Teams beside it over HTTP when RAGBOT_TEAMS_APP_ID is set, or Teams alone."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING, Any

from bot.cli.kb import kb_set_argument

if TYPE_CHECKING:
    from bot.context import AppContext
    from bot.settings import Settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "serve", help="run the Slack bot (Socket Mode with SLACK_APP_TOKEN, else HTTP)")
    parser.add_argument("--kb", default=None, type=kb_set_argument, metavar="KB[,KB...]",
                        help="knowledge base(s) that answer (default: RAGBOT_KB or 'default'); "
                             "hr,it,eng: the router picks among them; "
                             "RAGBOT_CHANNEL_KBS=C123=hr+it,C456=eng maps channels to others")
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


def handle(args: argparse.Namespace, ctx: AppContext) -> int:  # noqa: PLR0915 (wiring, read top to bottom)
    import shutil
    import tempfile
    from pathlib import Path

    import structlog

    from bot.conversations.worker import real_agent
    from bot.http.metrics import enable_multiprocess
    from bot.jobs import JobQueue
    from bot.slack.app import create_process_deps
    from bot.slack.service import SlackService
    from store.db import open_pool

    log = structlog.get_logger("ragbot.serve")
    if ctx.settings.teams_app_id and not ctx.settings.slack_bot_token:
        return _serve_teams_only(args, ctx)
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
    from slack_sdk.errors import SlackClientError

    teams = None
    try:
        # Teams beside Slack: its surface in this process and in every turn worker
        extra = _teams_extra(settings) if settings.teams_app_id and http else {}
        deps = create_process_deps(settings, pool=pool, database_url=ctx.database_url,
                                   workers=workers, kb=args.kb, jobs=JobQueue(ctx.pool),
                                   ctx=ctx, **extra)
        if extra:
            from bot.teams.app import build_endpoint

            teams = build_endpoint(deps, deps.settings)
        # Bolt checks the token with auth.test here
        service = SlackService(deps, metrics_dir=metrics_dir,
                               api_agent=lambda: real_agent(pool, ctx.embedder, deps.settings),
                               teams=teams)
    except (OSError, SlackClientError, ValueError) as exc:
        pool.close()
        shutil.rmtree(metrics_dir, ignore_errors=True)
        print(f"error: {slack_start_failure(exc, settings)}", file=sys.stderr)
        return 2
    # reindex jobs run beside it, in a process of their own (more can join: ragbot worker)
    jobs = _start_job_process(settings, ctx.database_url)
    signal.signal(signal.SIGTERM, _interrupt)  # docker stop: finish in-flight turns
    log.info("serve_starting", mode="http" if http else "socket_mode", kb=deps.default_kb,
             channel_kbs=len(deps.kbs.bindings), workers=workers)
    try:
        if http:
            service.start_http(args.host, args.port, background=False)
        else:
            service.start_socket_mode()
    except KeyboardInterrupt:
        pass
    finally:
        service.stop()
        if teams is not None:
            teams.close()
        jobs.terminate()  # SIGTERM: the job worker stops as `ragbot worker` does
        jobs.join(30)
        pool.close()
        shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def _teams_extra(settings: Settings) -> dict[str, Any]:
    """What Slack's deps need to serve Teams too; ValueError naming a missing setting."""
    from bot.teams.app import make_surface, missing_settings, slack_and_teams_worker_deps

    missing = missing_settings(settings)
    if missing:
        raise ValueError("set " + " and ".join(missing) + " (see README: Microsoft Teams)")
    return {"other_surfaces": {"teams": make_surface(settings)},
            "deps_factory": slack_and_teams_worker_deps}


def _serve_teams_only(args: argparse.Namespace, ctx: AppContext) -> int:  # noqa: PLR0915 (wiring, read top to bottom)
    """Teams without Slack: the same ASGI app with ``/api/messages`` and no
    ``/slack/events``; turns in worker processes, reindex jobs beside them."""
    import logging
    import shutil
    import tempfile
    from pathlib import Path

    import structlog

    from bot.conversations.recovery import Maintenance
    from bot.http.app import http_server
    from bot.http.metrics import enable_multiprocess
    from bot.jobs import JobQueue
    from bot.teams.app import build_endpoint, create_process_deps, missing_settings
    from store.db import open_pool

    log = structlog.get_logger("ragbot.serve")
    settings = ctx.settings
    if args.kb:
        settings = settings.model_copy(update={"default_kb": args.kb})
    workers = settings.slack_workers if args.workers is None else args.workers
    missing = missing_settings(settings)
    if workers < 1 or missing:
        print("error: " + ("--workers must be at least 1" if workers < 1 else
                           "set " + " and ".join(missing) + " (see README: Microsoft Teams)"),
              file=sys.stderr)
        return 2
    metrics_dir = Path(tempfile.mkdtemp(prefix="ragbot-metrics-"))
    enable_multiprocess(metrics_dir)
    pool = open_pool(ctx.database_url, min_size=2, max_size=32)
    level = logging.getLevelName(logging.getLogger().getEffectiveLevel())
    try:
        deps = create_process_deps(settings, pool=pool, database_url=ctx.database_url,
                                   workers=workers, log_level=level,
                                   jobs=JobQueue(ctx.pool), ctx=ctx)
        teams = build_endpoint(deps, settings)
    except (OSError, ValueError) as exc:
        pool.close()
        shutil.rmtree(metrics_dir, ignore_errors=True)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server = http_server(deps, None, host=args.host, port=args.port, metrics_dir=metrics_dir,
                         teams=teams)
    maintenance = Maintenance(deps, teams.runner)
    work = deps.work
    assert work is not None  # built with worker processes above
    work.start(maintenance.runner, maintenance.recover_lost)
    log.info("turn_workers_ready", pids=work.wait_ready())  # type: ignore[attr-defined]
    maintenance.start()  # turns a dead process accepted are taken over from here
    jobs = _start_job_process(settings, ctx.database_url)
    signal.signal(signal.SIGTERM, _interrupt)
    log.info("serve_starting", mode="http", surfaces="teams", kb=settings.default_kb,
             port=server.port, workers=workers)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        teams.close()
        work.shutdown()
        maintenance.stop()
        jobs.terminate()
        jobs.join(30)
        pool.close()
        shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def slack_start_failure(exc: BaseException, settings: Settings) -> str:
    """One line saying what failed when the bot first talks to Slack, and what to check."""
    if isinstance(exc, ValueError):  # a setting named in the message
        return str(exc)
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
    from bot.conversations.worker import exit_with_parent
    from bot.logging_setup import configure_logging

    configure_logging(log_level, settings.log_format)
    exit_with_parent()
    ctx = AppContext(settings.model_copy(update={"database_url": SecretStr(database_url)}))
    try:
        worker_cli.handle(argparse.Namespace(once=False), ctx)
    finally:
        ctx.close()
