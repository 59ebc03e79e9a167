"""What the core needs, built once by a surface's wiring (``bot.slack.app.create_deps``)
and passed down. A surface's own deps extend ``ConversationDeps`` with its clients."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from bot.conversations.model import ConversationKbs
from bot.conversations.pacing import Pacer, ThreadPacer
from bot.http.metrics import Metrics

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from agent.types import AnswerResult, Clarification, OnStage, Question
    from bot.context import AppContext
    from bot.conversations.surface import Surface
    from bot.conversations.work import TurnWork
    from bot.jobs import JobQueue
    from bot.settings import Settings


class AgentPort(Protocol):
    """The part of ``agent.api.Agent`` the core uses."""

    def ask(self, q: Question, on_stage: OnStage | None = None) -> AnswerResult: ...

    def resume(self, q: Question, reply: str,
               on_stage: OnStage | None = None) -> AnswerResult: ...

    def pending_clarification(self, thread_id: str) -> Clarification | None: ...


@dataclass(kw_only=True)
class ConversationDeps:
    settings: Settings
    pool: ConnectionPool
    # None in the process that serves the surfaces' requests when turns run in workers
    agent: AgentPort | None
    surface: Surface[Any]
    instance_id: str  # the serving process, in the turn journal and worker heartbeats
    work: TurnWork | None  # runs agent turns (None inside a worker process)
    kbs: ConversationKbs = field(default_factory=ConversationKbs)
    pacer: Pacer = field(default_factory=ThreadPacer)
    heartbeat_s: float = 10.0
    stale_after_s: float = 30.0  # a process silent this long is dead: its turns are orphans
    max_attempts: int = 2  # an orphaned turn is re-run once, then reported
    # counted in every process; ``ragbot serve`` sums them across processes (bot.http.metrics)
    metrics: Metrics = field(default_factory=Metrics)
    jobs: JobQueue | None = None  # the reindex job queue (admin commands)
    ctx: AppContext | None = None  # for features that need more (embedder)
    extra: dict[str, Any] = field(default_factory=dict)
    # Surfaces besides ``surface`` whose turns this process may run (orphans taken over,
    # a worker shared by several surfaces), by name.
    other_surfaces: dict[str, Surface[Any]] = field(default_factory=dict)

    def surface_for(self, name: str) -> Surface[Any]:
        """The surface that answers turns of ``name``."""
        if name == self.surface.name:
            return self.surface
        try:
            return self.other_surfaces[name]
        except KeyError:
            raise LookupError(f"no surface {name!r} in this process: wire it into "
                              "ConversationDeps.other_surfaces") from None

    @property
    def surface_names(self) -> tuple[str, ...]:
        """Every surface this process answers on."""
        return (self.surface.name, *self.other_surfaces)

    @property
    def default_kb(self) -> str:
        """The knowledge base of conversations without a binding of their own."""
        return self.kbs.default[0]


def kbs_from_settings(settings: Settings) -> ConversationKbs:
    """``RAGBOT_KB``, ``RAGBOT_CHANNEL_KBS`` and ``RAGBOT_DM_KBS`` as a ``ConversationKbs``
    (each a KB or a set, ``hr+it``: ``store.kbset``)."""
    from store.kbset import parse_kb_set

    return ConversationKbs(default=parse_kb_set(settings.default_kb),
                           bindings={c: parse_kb_set(kb)
                                     for c, kb in settings.channel_kbs.items()},
                           direct=parse_kb_set(settings.dm_kbs))
