"""Wiring only: Settings -> dependencies -> Bolt ``App`` -> ``register(app, deps)`` per
feature. No behaviour lives here."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from typing import TYPE_CHECKING, Any, Literal

from slack_bolt import App

from bot.conversations.deps import kbs_from_settings
from bot.conversations.executor import ContextThreadPoolExecutor
from bot.conversations.pacing import SharedPacer
from bot.conversations.work import ProcessTurnWork, ThreadTurnWork
from bot.conversations.worker import AgentFactory, WorkerConfig, real_agent
from bot.slack.access import ChannelDirectory, GroupDirectory
from bot.slack.client import make_web_client
from bot.slack.deps import AgentPort, SlackDeps
from bot.slack.listeners import register_all
from bot.slack.surface import SlackSurface

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool
    from slack_sdk import WebClient

    from bot.conversations.pacing import Pacer
    from bot.conversations.work import TurnWork
    from bot.settings import Settings


def make_instance_id() -> str:
    """This process, as named in the turn journal: host, pid and a random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def create_deps(settings: Settings, *, pool: ConnectionPool, agent: AgentPort | None,
                client: WebClient | None = None, kb: str | None = None,
                work_workers: int = 4,
                work: TurnWork | Literal["threads"] | None = "threads",
                instance_id: str | None = None, **overrides: Any) -> SlackDeps:
    """Everything the listeners need. ``kb`` overrides the default knowledge base. Turns
    run on ``work_workers`` threads of this process unless ``work`` says otherwise (see
    ``create_process_deps``; None inside a worker process)."""
    if kb:
        settings = settings.model_copy(update={"default_kb": kb})
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    client = client or make_web_client(token, settings.slack_api_url)
    groups = overrides.pop("groups", None) or GroupDirectory(client, pool)
    surface = SlackSurface(client, ChannelDirectory(client), admins=settings.admins,
                           link_hosts=settings.link_hosts, groups=groups)
    return SlackDeps(
        settings=settings,
        pool=pool,
        agent=agent,
        client=client,
        surface=surface,
        slack=surface,
        instance_id=instance_id or make_instance_id(),
        work=ThreadTurnWork(work_workers) if work == "threads" else work,
        kbs=kbs_from_settings(settings),
        **overrides,
    )


def worker_deps(settings: Settings, pool: ConnectionPool, agent: AgentPort, pacer: Pacer,
                instance_id: str) -> SlackDeps:
    """The deps of a turn worker process (``WorkerConfig.deps_factory``): its own Slack
    client, no work pool of its own."""
    return create_deps(settings, pool=pool, agent=agent, pacer=pacer,
                       instance_id=instance_id, work=None)


def create_process_deps(settings: Settings, *, pool: ConnectionPool, database_url: str,
                        workers: int, kb: str | None = None,
                        agent_factory: AgentFactory = real_agent,
                        **overrides: Any) -> SlackDeps:
    """Dependencies of a bot whose agent turns run in ``workers`` worker processes: this
    process acknowledges Slack and posts first status lines; each worker builds its own
    pool, embedder and agent (``agent_factory``) on ``database_url``."""
    if kb:
        settings = settings.model_copy(update={"default_kb": kb})
    root = logging.getLogger()
    pacer = overrides.pop("pacer", None) or SharedPacer()
    # another surface served beside Slack brings a factory that builds it in workers too
    deps_factory = overrides.pop("deps_factory", None) or worker_deps
    me = make_instance_id()
    config = WorkerConfig(settings=settings, database_url=database_url, instance_id=me,
                          pacer=pacer, deps_factory=deps_factory,
                          agent_factory=agent_factory,
                          log_level=logging.getLevelName(root.getEffectiveLevel()),
                          log_format=settings.log_format)
    return create_deps(settings, pool=pool, agent=None, pacer=pacer, instance_id=me,
                       work=ProcessTurnWork(config, workers), **overrides)


def build_app(deps: SlackDeps, *, listener_workers: int = 4,
              token_verification: bool = True) -> App:
    """The Bolt app with every feature registered.

    Listeners run on a pool that copies context variables, so log context bound in a
    request survives into its listener. ``token_verification`` calls ``auth.test`` at
    start (fails fast on a bad token).

    Listeners are short (a status line, a vote, a job queued: answers run on the work
    pool), so few threads keep up; more would only compete with the request threads for
    the interpreter lock while Slack waits for acks (a burst of 50 events on 2 loaded
    cores: ack p99 about 110 ms with 4 listener threads, 150-210 ms with 16).
    """
    settings = deps.settings
    socket_mode = bool(settings.slack_app_token)
    secret = (settings.slack_signing_secret.get_secret_value()
              if settings.slack_signing_secret else "")
    if not socket_mode and not secret.strip():
        # with an empty secret anyone can sign a request: HMAC has no key to keep
        raise ValueError("SLACK_SIGNING_SECRET is empty: set it to the app's signing secret "
                         "(Basic Information > Signing Secret) or use Socket Mode "
                         "(SLACK_APP_TOKEN)")
    app = App(
        client=deps.client,
        signing_secret=secret,
        # Socket Mode requests arrive over an authenticated websocket, unsigned
        request_verification_enabled=not socket_mode,
        token_verification_enabled=token_verification,
        listener_executor=ContextThreadPoolExecutor(max_workers=listener_workers,
                                                    thread_name_prefix="bolt-listener"),
        logger=logging.getLogger("slack_bolt"),
    )
    register_all(app, deps)
    return app
