"""What the Slack listeners need, built once in ``app.create_deps`` and passed to every
``register(app, deps)``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from bot.http.metrics import Metrics
from bot.slack.access import ChannelDirectory, no_groups
from bot.slack.status import Pacer, ThreadPacer

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool
    from slack_sdk import WebClient

    from agent.api import AnswerResult, Clarification, OnStage, Question
    from bot.context import AppContext
    from bot.jobs import JobQueue
    from bot.settings import Settings
    from bot.slack.work import TurnWork


class AgentPort(Protocol):
    """The part of ``agent.api.Agent`` the surface uses."""

    def ask(self, q: Question, on_stage: OnStage | None = None) -> AnswerResult: ...

    def resume(self, q: Question, reply: str,
               on_stage: OnStage | None = None) -> AnswerResult: ...

    def pending_clarification(self, thread_id: str) -> Clarification | None: ...


@dataclass
class SlackDeps:
    settings: Settings
    pool: ConnectionPool
    # None in the process that serves Slack's requests when turns run in worker processes
    agent: AgentPort | None
    client: WebClient
    directory: ChannelDirectory
    instance_id: str  # the serving process, in the turn journal and worker heartbeats
    work: TurnWork | None  # runs agent turns (None inside a worker process)
    default_kb: str = "default"
    channel_kbs: Mapping[str, str] = field(default_factory=dict)
    pacer: Pacer = field(default_factory=ThreadPacer)
    groups: Callable[[str], tuple[str, ...]] = no_groups
    heartbeat_s: float = 10.0
    stale_after_s: float = 30.0  # a process silent this long is dead: its turns are orphans
    max_attempts: int = 2  # an orphaned turn is re-run once, then reported
    # counted in every process; ``ragbot serve`` sums them across processes (bot.http.metrics)
    metrics: Metrics = field(default_factory=Metrics)
    jobs: JobQueue | None = None  # the reindex job queue (/ragbot commands)
    ctx: AppContext | None = None  # for features that need more (embedder)
    extra: dict[str, Any] = field(default_factory=dict)

    def kb_for(self, channel: str) -> str:
        """The knowledge base that answers in ``channel``."""
        return self.channel_kbs.get(channel, self.default_kb)

    @property
    def admins(self) -> frozenset[str]:
        return frozenset(self.settings.admins)
