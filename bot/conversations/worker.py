"""Inside a turn worker process (see ``bot.conversations.work.ProcessTurnWork``).

``init_worker`` runs once when the process starts: it builds the process's own database
pool, embedder and agent from the picklable ``WorkerConfig``, then the surface's deps with
its clients (``WorkerConfig.deps_factory``, the surface's own), and keeps the
``TurnRunner`` that ``run_turn`` uses for every turn after. The worker exits when the
process that started it dies, so a turn is never answered twice (the journal hands it to
the next process instead).
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from bot.conversations.turns import TurnRunner

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from bot.conversations.deps import AgentPort, ConversationDeps
    from bot.conversations.pacing import SharedPacer
    from bot.settings import Settings
    from store.conversations import Turn
    from store.embedder import Embedder

log = structlog.get_logger("ragbot.conversations.worker")

AgentFactory = Callable[["ConnectionPool", "Embedder", "Settings"], "AgentPort"]
# Builds a worker's deps (its surface's clients) once its agent exists: (settings, pool,
# agent, pacer, owner instance id). A module-level function of the surface (it is pickled).
DepsFactory = Callable[["Settings", "ConnectionPool", "AgentPort", "SharedPacer", str],
                       "ConversationDeps"]


def real_agent(pool: ConnectionPool, embedder: Embedder, settings: Settings) -> AgentPort:
    """The agent ``ragbot serve`` answers with (engine from Settings)."""
    from agent.api import build_agent
    from agent.factory import config_from_settings, engine_from_settings, translator_from_settings

    return build_agent(pool, embedder, engine=engine_from_settings(settings),
                       config=config_from_settings(settings),
                       translator=translator_from_settings(settings))


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker builds its dependencies from; pickled to each worker."""

    settings: Settings  # the default KB already applied
    database_url: str
    instance_id: str  # the owning process, as named in the turn journal
    pacer: SharedPacer  # status writes are paced with the owning process
    deps_factory: DepsFactory  # the surface's deps (e.g. bot.slack.app.worker_deps)
    agent_factory: AgentFactory = real_agent  # a module-level function (it is pickled)
    log_level: str = "INFO"
    log_format: str = "auto"
    # Turns are batch work next to the acks owed to the surfaces: on a busy host the scheduler
    # gives the request process the CPU first.
    niceness: int = 10
    pool_size: int = 6  # one turn at a time: thread lock, search, probe, journal


# This process's runner. ProcessPoolExecutor hands what its initializer built to later
# tasks only through the worker's globals; it is written once, by ``init_worker``.
_RUNNER: dict[str, TurnRunner] = {}


def init_worker(config: WorkerConfig) -> None:
    """Build this worker's dependencies (the process pool's initializer)."""
    from bot.logging_setup import configure_logging
    from store.db import open_pool
    from store.embedding import load_embedder, serving_threads

    configure_logging(config.log_level, config.log_format)
    # Ctrl-C reaches the whole process group; the serving process decides how turns end
    # (finish the ones in hand), so a worker must not die of it mid-answer
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()
    if config.niceness:
        os.nice(config.niceness)
    s = config.settings
    serving_threads(s.embed_backend)
    pool = open_pool(config.database_url, max_size=config.pool_size)
    embedder = load_embedder(s.embed_model, s.embed_model_path, batch_size=s.embed_batch_size,
                             backend=s.embed_backend, home=s.home, threads=1)
    agent = config.agent_factory(pool, embedder, s)
    # Test agents and other ports may have nothing to warm up.
    warm_up = getattr(agent, "warm_up", None)
    if callable(warm_up):
        warm_up()
    deps = config.deps_factory(s, pool, agent, config.pacer, config.instance_id)
    _RUNNER["runner"] = TurnRunner(deps)
    log.info("turn_worker_ready", pid=os.getpid(), owner=config.instance_id)


def ready() -> int:
    """A no-op task that makes the process start (and ``init_worker`` run); its pid."""
    return os.getpid()


def run_turn(turn: Turn) -> None:
    """Answer one journaled turn (never raises: failures become an apology)."""
    _RUNNER["runner"].run(turn)


def exit_with_parent() -> None:
    """Exit as soon as the owning process is gone: its turns are orphans in the journal
    now, and the process that takes them over must be the only one to answer."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        logging.shutdown()
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="ragbot-parent-watch").start()
