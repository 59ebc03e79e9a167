"""Wiring only: Settings -> the Teams surface's dependencies -> its endpoint. Used by
``ragbot serve`` (beside Slack, or alone) and by the tests, so both run the same code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx
import structlog

from bot.conversations.executor import ContextThreadPoolExecutor
from bot.http.metrics import Metrics
from bot.teams.auth import BotTokenProvider, InboundAuth
from bot.teams.connector import Connector
from bot.teams.deps import TeamsDeps
from bot.teams.endpoint import TeamsEndpoint
from bot.teams.turns import TeamsTurnRunner
from store import teams_state

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from bot.settings import Settings
    from bot.slack.deps import AgentPort

log = structlog.get_logger("ragbot.teams")


def missing_settings(settings: Settings) -> list[str]:
    """The Teams settings still unset when ``RAGBOT_TEAMS_APP_ID`` is."""
    missing = []
    if not settings.teams_app_secret:
        missing.append("RAGBOT_TEAMS_APP_SECRET (the Entra app's client secret)")
    if not settings.teams_tenant_id:
        missing.append("RAGBOT_TEAMS_TENANT_ID (the Entra tenant id)")
    return missing


@dataclass
class TeamsSurface:
    deps: TeamsDeps
    endpoint: TeamsEndpoint
    http: httpx.Client

    def recover(self) -> int:
        """Answer the turns another (dead) process accepted but never finished."""
        with self.deps.pool.connection() as conn:
            turns = teams_state.open_turns(conn, stale_after_s=self.deps.stale_after_s,
                                           owner=self.deps.instance_id)
        for turn in turns:
            self.deps.work.submit(self.endpoint.runner.run, turn)
        if turns:
            log.info("teams_turns_recovered", count=len(turns))
        return len(turns)

    def stop(self) -> None:
        self.deps.work.shutdown(wait=True, cancel_futures=True)
        self.http.close()


def build_teams(settings: Settings, *, pool: ConnectionPool, agent: Callable[[], AgentPort],
                instance_id: str, metrics: Metrics | None = None, workers: int = 4,
                stale_after_s: float = 60.0) -> TeamsSurface:
    """The Teams surface, with the signing keys already fetched (so the first request
    does not wait for them). Raises what the metadata fetch raises."""
    app_id = settings.teams_app_id or ""
    secret = settings.teams_app_secret
    tenant = settings.teams_tenant_id
    if not app_id or secret is None or not tenant:
        raise ValueError("set " + " and ".join(missing_settings(settings) or
                                               ["RAGBOT_TEAMS_APP_ID"]))
    auth = InboundAuth(app_id, settings.teams_openid_metadata_url)
    auth.start()
    http = httpx.Client(timeout=httpx.Timeout(15.0, connect=5.0))
    tokens = BotTokenProvider(http, login_url=settings.teams_login_url, tenant_id=tenant,
                              app_id=app_id, secret=secret)
    deps = TeamsDeps(settings=settings, pool=pool, auth=auth, connector=Connector(http, tokens),
                     agent=_once(agent), instance_id=instance_id,
                     work=ContextThreadPoolExecutor(max_workers=workers,
                                                    thread_name_prefix="ragbot-teams-turn"),
                     metrics=metrics or Metrics(), default_kb=settings.default_kb,
                     stale_after_s=stale_after_s)
    return TeamsSurface(deps, TeamsEndpoint(deps, TeamsTurnRunner(deps)), http)


def _once(factory: Callable[[], AgentPort]) -> Callable[[], AgentPort]:
    import threading

    lock = threading.Lock()
    built: list[AgentPort] = []

    def get() -> AgentPort:
        with lock:
            if not built:
                built.append(factory())
            return built[0]

    return get
