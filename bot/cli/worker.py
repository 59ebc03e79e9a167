"""``ragbot worker``: run background jobs (reindex) without serving Slack or Teams.

``ragbot serve`` already runs a worker; extra ones on the same database share the queue,
so a long reindex can run on a machine of its own.
"""

from __future__ import annotations

import argparse
import signal
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.context import AppContext


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("worker", help="run background jobs (reindex) from the job queue")
    parser.add_argument("--once", action="store_true",
                        help="run the jobs waiting now, then exit (for cron or a one-off)")
    parser.set_defaults(handler=handle)


class _LogNotifier:
    """Without Slack or Teams settings, job progress goes to the log only."""

    def notify(self, *, channel: str, user: str, text: str,
               response_url: str | None = None, surface: str = "slack",
               address: dict[str, str] | None = None) -> None:
        import structlog

        structlog.get_logger("ragbot.jobs").info("job_message", surface=surface,
                                                 channel=channel, user=user, text=text)


def handle(args: argparse.Namespace, ctx: AppContext) -> int:
    from bot.jobs import (
        QUEUE,
        JobDeps,
        JobQueue,
        build_worker_app,
        start_worker,
        store_prune,
        store_reindex,
    )

    settings = ctx.settings
    notifier: Any = _LogNotifier()
    surfaces: dict[str, Any] = {}
    if settings.slack_bot_token:
        from bot.slack.client import make_web_client
        from bot.slack.listeners.commands import SlackNotifier

        slack = SlackNotifier(make_web_client(settings.slack_bot_token.get_secret_value(),
                                              settings.slack_api_url))
        surfaces.update(slack.surfaces)
    if settings.teams_app_id and settings.teams_app_secret and settings.teams_tenant_id:
        from bot.teams.app import make_surface

        surfaces["teams"] = make_surface(settings)
    if surfaces:
        from bot.conversations.commands import SurfaceNotifier

        notifier = SurfaceNotifier(surfaces)
    JobQueue(ctx.pool)  # applies the queue's schema if this is the first process

    def reindex(kb: str, on_progress: Any) -> Any:
        # the model loads with the first job, not at start
        return store_reindex(ctx.pool, ctx.embedder,
                             (settings.max_file_bytes, settings.max_pdf_pages))(kb, on_progress)

    deps = JobDeps(reindex=reindex, notifier=notifier,
                   prune=store_prune(ctx.pool, settings.retention_days))
    if args.once:
        build_worker_app(ctx.database_url, deps).run_worker(
            wait=False, install_signal_handlers=False, queues=[QUEUE])
        return 0
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    worker = start_worker(ctx.database_url, deps)
    print("ragbot worker running; Ctrl-C to stop")
    while not stop.wait(1.0):
        if not worker.alive:
            return 1
    worker.stop()
    return 0
