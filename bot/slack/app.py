"""Wiring only: Settings -> dependencies -> Bolt ``App`` -> ``register(app, deps)`` per
feature. No behaviour lives here."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from typing import TYPE_CHECKING, Any

from slack_bolt import App

from bot.slack.access import ChannelDirectory, GroupDirectory
from bot.slack.client import make_web_client
from bot.slack.deps import AgentPort, SlackDeps
from bot.slack.executor import ContextThreadPoolExecutor
from bot.slack.listeners import register_all
from bot.slack.restricted import RestrictedProbe

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool
    from slack_sdk import WebClient

    from bot.settings import Settings
    from store.embedding import Embedder


def instance_id() -> str:
    """This process, as named in the turn journal: host, pid and a random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def create_deps(settings: Settings, *, pool: ConnectionPool, agent: AgentPort,
                client: WebClient | None = None, kb: str | None = None,
                embedder: Embedder | None = None, work_workers: int = 4,
                **overrides: Any) -> SlackDeps:
    """Everything the listeners need. ``kb`` overrides the default knowledge base; with
    ``embedder``, refusals caused by access rules are told as such."""
    if kb:
        settings = settings.model_copy(update={"default_kb": kb})
    client = client or make_web_client(settings.slack_bot_token, settings.slack_api_url)
    return SlackDeps(
        settings=settings,
        pool=pool,
        agent=agent,
        client=client,
        directory=ChannelDirectory(client),
        instance_id=instance_id(),
        work_executor=ContextThreadPoolExecutor(max_workers=work_workers,
                                                thread_name_prefix="ragbot-turn"),
        default_kb=settings.default_kb,
        channel_kbs=dict(settings.channel_kbs),
        restricted_probe=RestrictedProbe(pool, embedder) if embedder is not None else None,
        **{"groups": GroupDirectory(client, pool), **overrides},
    )


def build_app(deps: SlackDeps, *, listener_workers: int = 16,
              token_verification: bool = True) -> App:
    """The Bolt app with every feature registered.

    Listeners run on a pool that copies context variables, so log context bound in a
    request survives into its listener. ``token_verification`` calls ``auth.test`` at
    start (fails fast on a bad token).
    """
    settings = deps.settings
    socket_mode = bool(settings.slack_app_token)
    app = App(
        client=deps.client,
        signing_secret=settings.slack_signing_secret or "",
        # Socket Mode requests arrive over an authenticated websocket, unsigned
        request_verification_enabled=not socket_mode,
        token_verification_enabled=token_verification,
        listener_executor=ContextThreadPoolExecutor(max_workers=listener_workers,
                                                    thread_name_prefix="bolt-listener"),
        logger=logging.getLogger("slack_bolt"),
    )
    register_all(app, deps)
    return app
