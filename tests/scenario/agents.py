"""Agents wrapped for failure injection: the real agent with a fault in front of it.

Used only where the scenario is a fault (a crash, an exception, a slow model); every other
scenario runs the real agent unwrapped.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any


class ProcessDied(BaseException):
    """Raised inside a turn to model the process dying: nothing after it runs."""


class BlockingAgent:
    """Never finishes a turn until released; then the "process" dies mid-turn."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def ask(self, q: Any, on_stage: Any = None) -> Any:
        self.entered.set()
        self.release.wait(60)
        raise ProcessDied

    def resume(self, q: Any, reply: str, on_stage: Any = None) -> Any:
        return self.ask(q, on_stage)

    def pending_clarification(self, thread_id: str) -> None:
        return None


class ExplodingAgent:
    """Fails every turn with an exception whose text must never reach the user."""

    SECRET = "db password hunter2 at /srv/internal"  # noqa: S105 (must never be shown)

    def ask(self, q: Any, on_stage: Any = None) -> Any:
        raise RuntimeError(self.SECRET)

    def resume(self, q: Any, reply: str, on_stage: Any = None) -> Any:
        raise RuntimeError(self.SECRET)

    def pending_clarification(self, thread_id: str) -> None:
        return None


class SlowStages:
    """The real agent, with each stage taking ``delay_s`` longer (like an LLM engine)."""

    def __init__(self, agent: Any, delay_s: float) -> None:
        self.agent = agent
        self.delay_s = delay_s
        self.stages: list[float] = []

    def _wrap(self, on_stage: Any) -> Any:
        def slow(event: Any) -> None:
            self.stages.append(time.monotonic())
            if on_stage is not None:
                on_stage(event)
            time.sleep(self.delay_s)
        return slow

    def ask(self, q: Any, on_stage: Any = None) -> Any:
        return self.agent.ask(q, on_stage=self._wrap(on_stage))

    def resume(self, q: Any, reply: str, on_stage: Any = None) -> Any:
        return self.agent.resume(q, reply, on_stage=self._wrap(on_stage))

    def pending_clarification(self, thread_id: str) -> Any:
        return self.agent.pending_clarification(thread_id)


# ---------------------------------------------------------------- worker-process faults
# Agent factories for ``bot.conversations.worker.WorkerConfig.agent_factory``: module-level, so a
# ``functools.partial`` of one pickles into the worker process.

class _KillsItsProcess:
    """The real agent, except that a turn may kill the worker process running it, as the
    out-of-memory killer would (SIGKILL: no cleanup, no exception)."""

    def __init__(self, agent: Any, marker: Path | None) -> None:
        self.agent = agent
        self.marker = marker

    def _maybe_die(self) -> None:
        if self.marker is not None:
            try:
                self.marker.open("x").close()  # only the first turn of all dies
            except FileExistsError:
                return
        os.kill(os.getpid(), signal.SIGKILL)

    def ask(self, q: Any, on_stage: Any = None) -> Any:
        self._maybe_die()
        return self.agent.ask(q, on_stage=on_stage)

    def resume(self, q: Any, reply: str, on_stage: Any = None) -> Any:
        self._maybe_die()
        return self.agent.resume(q, reply, on_stage=on_stage)

    def pending_clarification(self, thread_id: str) -> Any:
        return self.agent.pending_clarification(thread_id)


def dies_once(marker: str, pool: Any, embedder: Any, settings: Any) -> Any:
    """The first turn (across every worker, via the ``marker`` file) kills its worker;
    later turns are answered by the real agent."""
    from bot.conversations.worker import real_agent

    return _KillsItsProcess(real_agent(pool, embedder, settings), Path(marker))


def always_dies(pool: Any, embedder: Any, settings: Any) -> Any:
    """Every turn kills its worker."""
    from bot.conversations.worker import real_agent

    return _KillsItsProcess(real_agent(pool, embedder, settings), None)


def slow_search(delay_s: float, pool: Any, embedder: Any, settings: Any) -> Any:
    """The real agent (its deadline from ``settings``) whose query embeddings each take
    ``delay_s``."""
    from bot.conversations.worker import real_agent
    from tests.fakes.slow_embedder import SlowQueryEmbedder

    return real_agent(pool, SlowQueryEmbedder(embedder, delay_s), settings)
