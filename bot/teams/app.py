"""Wiring only: Settings -> the Teams surface -> the core's deps -> the endpoint. Used by
``ragbot serve`` (beside Slack, or alone), the job worker and the tests, so all run the
same code. No behaviour lives here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import httpx

from bot.conversations.deps import ConversationDeps, kbs_from_settings
from bot.conversations.pacing import SharedPacer
from bot.conversations.turns import TurnRunner
from bot.conversations.work import ProcessTurnWork, ThreadTurnWork
from bot.conversations.worker import AgentFactory, WorkerConfig, real_agent
from bot.teams.auth import BotTokenProvider, InboundAuth
from bot.teams.connector import Connector
from bot.teams.endpoint import TeamsEndpoint
from bot.teams.surface import TeamsSurface

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from bot.conversations.deps import AgentPort
    from bot.conversations.pacing import Pacer
    from bot.conversations.work import TurnWork
    from bot.settings import Settings
    from bot.slack.deps import SlackDeps


def missing_settings(settings: Settings) -> list[str]:
    """The Teams settings still unset when ``RAGBOT_TEAMS_APP_ID`` is."""
    missing = []
    if not settings.teams_app_secret:
        missing.append("RAGBOT_TEAMS_APP_SECRET (the Entra app's client secret)")
    if not settings.teams_tenant_id:
        missing.append("RAGBOT_TEAMS_TENANT_ID (the Entra tenant id)")
    return missing


def make_surface(settings: Settings) -> TeamsSurface:
    """The Teams surface with its own HTTP client and bot token (one per process)."""
    app_id = settings.teams_app_id or ""
    secret = settings.teams_app_secret
    tenant = settings.teams_tenant_id
    if not app_id or secret is None or not tenant:
        raise ValueError("set " + " and ".join(missing_settings(settings) or
                                               ["RAGBOT_TEAMS_APP_ID"]))
    http = httpx.Client(timeout=httpx.Timeout(15.0, connect=5.0))
    tokens = BotTokenProvider(http, login_url=settings.teams_login_url, tenant_id=tenant,
                              app_id=app_id, secret=secret)
    return TeamsSurface(Connector(http, tokens), admins=settings.teams_admins,
                        link_hosts=settings.link_hosts, bot_id=f"28:{app_id}", tenant=tenant)


def create_deps(settings: Settings, *, pool: ConnectionPool, agent: AgentPort | None,
                work: TurnWork | Literal["threads"] | None = "threads", work_workers: int = 4,
                instance_id: str | None = None, **overrides: Any) -> ConversationDeps:
    """The core's deps with Teams as the surface; turns on ``work_workers`` threads of this
    process unless ``work`` says otherwise (None inside a worker process)."""
    from bot.slack.app import make_instance_id

    return ConversationDeps(
        settings=settings, pool=pool, agent=agent, surface=make_surface(settings),
        instance_id=instance_id or make_instance_id(),
        work=ThreadTurnWork(work_workers) if work == "threads" else work,
        kbs=kbs_from_settings(settings), **overrides)


def worker_deps(settings: Settings, pool: ConnectionPool, agent: AgentPort, pacer: Pacer,
                instance_id: str) -> ConversationDeps:
    """A turn worker process's deps when Teams is served alone
    (``WorkerConfig.deps_factory``)."""
    return create_deps(settings, pool=pool, agent=agent, pacer=pacer,
                       instance_id=instance_id, work=None)


def slack_and_teams_worker_deps(settings: Settings, pool: ConnectionPool, agent: AgentPort,
                                pacer: Pacer, instance_id: str) -> SlackDeps:
    """A turn worker process's deps when Slack and Teams are served together: Slack's,
    with Teams beside it."""
    from bot.slack.app import worker_deps as slack_worker_deps

    deps = slack_worker_deps(settings, pool, agent, pacer, instance_id)
    deps.other_surfaces["teams"] = make_surface(settings)
    return deps


def create_process_deps(settings: Settings, *, pool: ConnectionPool, database_url: str,
                        workers: int, agent_factory: AgentFactory = real_agent,
                        log_level: str = "INFO", **overrides: Any) -> ConversationDeps:
    """Teams alone, its turns in ``workers`` worker processes (as Slack's
    ``create_process_deps``)."""
    from bot.slack.app import make_instance_id

    pacer = overrides.pop("pacer", None) or SharedPacer()
    me = make_instance_id()
    config = WorkerConfig(settings=settings, database_url=database_url, instance_id=me,
                          pacer=pacer, deps_factory=worker_deps, agent_factory=agent_factory,
                          log_level=log_level, log_format=settings.log_format)
    return create_deps(settings, pool=pool, agent=None, pacer=pacer, instance_id=me,
                       work=ProcessTurnWork(config, workers), **overrides)


def build_endpoint(deps: ConversationDeps, settings: Settings) -> TeamsEndpoint:
    """``/api/messages`` for ``deps`` (Teams among its surfaces), with the signing keys
    already fetched so the first request does not wait for them. Raises what the
    metadata fetch raises."""
    auth = InboundAuth(settings.teams_app_id or "", settings.teams_openid_metadata_url)
    auth.start()
    return TeamsEndpoint(deps, auth, TurnRunner(deps))
