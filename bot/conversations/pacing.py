"""Pacing of a thread's writes: at least ``interval_s`` apart per thread, so status
updates stay within the surfaces' rate limits (Slack: about one update a second per
message). ``SharedPacer`` shares the budget across the processes of one bot.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext


class ThreadPacer:
    """Hands out write slots per thread, at least ``interval_s`` apart.

    Shared by every turn of the process, so two turns in one thread share the budget.
    The default is a little over a second so that network jitter cannot bring two writes
    closer than a second at Slack's end.
    """

    def __init__(self, interval_s: float = 1.2,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}

    def reserve(self, key: str) -> float:
        """Take the thread's next slot; return how many seconds until it starts."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next.get(key, now))
            self._next[key] = slot + self.interval_s
            if len(self._next) > 1000:  # forget threads that have been quiet a while
                self._next = {k: v for k, v in self._next.items() if v > now}
            return slot - now

    def wait_hint(self, key: str) -> float:
        """Seconds until the thread's next slot, without taking it."""
        with self._lock:
            return max(0.0, self._next.get(key, 0.0) - self._clock())


class SharedPacer:
    """``ThreadPacer`` shared by the processes of one bot: the one that posts the first
    status line and the worker processes that update it and post the answer.

    The slots live in shared memory, one per hash of the thread key; two threads that
    share a slot only share a budget (never two writes of one thread within
    ``interval_s``). Times are ``CLOCK_MONOTONIC``, which every process of a host reads
    alike. Hand it to worker processes when they are spawned (it pickles only then).
    """

    def __init__(self, interval_s: float = 1.2, *, slots: int = 1 << 16,
                 context: BaseContext | None = None) -> None:
        ctx = context or multiprocessing.get_context("spawn")
        self.interval_s = interval_s
        self._next = ctx.RawArray("d", slots)
        self._lock = ctx.Lock()

    def _slot(self, key: str) -> int:
        # crc32, not hash(): string hashes are salted per process
        return zlib.crc32(key.encode("utf-8")) % len(self._next)

    def reserve(self, key: str) -> float:
        """Take the thread's next slot; return how many seconds until it starts."""
        i = self._slot(key)
        with self._lock:
            now = time.monotonic()
            slot = max(now, float(self._next[i]))
            self._next[i] = slot + self.interval_s
            return slot - now

    def wait_hint(self, key: str) -> float:
        """Seconds until the thread's next slot, without taking it."""
        i = self._slot(key)
        with self._lock:
            return max(0.0, float(self._next[i]) - time.monotonic())


class Pacer(Protocol):
    """What ``LiveStatus`` needs of a pacer (``ThreadPacer`` or ``SharedPacer``)."""

    def reserve(self, key: str) -> float: ...

    def wait_hint(self, key: str) -> float: ...
