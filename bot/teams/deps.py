"""What the Teams surface needs, built once in ``build_teams_deps`` and passed down."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.conversations.pacing import Pacer, ThreadPacer
from bot.http.metrics import Metrics

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from bot.settings import Settings
    from bot.slack.deps import AgentPort
    from bot.teams.auth import InboundAuth
    from bot.teams.connector import Connector


@dataclass
class TeamsDeps:
    settings: Settings
    pool: ConnectionPool
    auth: InboundAuth
    connector: Connector
    agent: Callable[[], AgentPort]  # built on first use (loads the models)
    instance_id: str
    work: concurrent.futures.Executor  # runs turns after the 200
    metrics: Metrics = field(default_factory=Metrics)
    pacer: Pacer = field(default_factory=ThreadPacer)
    default_kb: str = "default"
    stale_after_s: float = 60.0  # an open turn untouched this long lost its process

    @property
    def admins(self) -> frozenset[str]:
        return frozenset(self.settings.teams_admins)
