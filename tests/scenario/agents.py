"""Agents wrapped for failure injection: the real agent with a fault in front of it.

Used only where the scenario is a fault (a crash, an exception, a slow model); every other
scenario runs the real agent unwrapped.
"""

from __future__ import annotations

import threading
import time
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
