"""The live status message of a turn: posted at once, updated at each stage no more than
once a second per thread, then replaced by the answer.

The agent's ``on_stage`` callback only records the latest stage and arms a timer, so the
agent never waits on Slack; the timer thread does the write when the thread's next slot
comes (a timed wait, never a busy loop). Stages that arrive faster than the slots are
coalesced: only the newest is shown.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import structlog
from slack_sdk.errors import SlackApiError

from bot.slack.blocks import Message, status_message

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    from slack_sdk import WebClient

log = structlog.get_logger("ragbot.slack.status")


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


class LiveStatus:
    """One turn's status message in ``channel``/``thread_ts``."""

    def __init__(self, client: WebClient, pacer: Pacer, *, channel: str,
                 thread_ts: str, key: str, ts: str | None = None) -> None:
        self._client = client
        self._pacer = pacer
        self.channel = channel
        self.thread_ts = thread_ts
        self._key = key
        self.ts = ts
        self._lock = threading.Lock()
        self._io = threading.Lock()
        self._stop = threading.Event()
        self._pending: str | None = None
        self._timer: threading.Timer | None = None
        self.updates = 0

    def post(self, line: str) -> str | None:
        """Show the first status line (or reuse the message adopted at construction)."""
        if self.ts is not None:
            self.stage(line)
            return self.ts
        with self._io:
            self._stop.wait(self._pacer.reserve(self._key))
            msg = status_message(line)
            self.ts = self._post(msg)
        return self.ts

    def stage(self, line: str) -> None:
        """Record the newest stage line; it is shown at the thread's next free slot."""
        with self._lock:
            if self._stop.is_set():
                return
            self._pending = line
            if self._timer is None:
                self._timer = threading.Timer(self._pacer.wait_hint(self._key), self._flush)
                self._timer.daemon = True
                self._timer.start()

    def _flush(self) -> None:
        with self._io:
            with self._lock:
                self._timer = None
                if self._stop.is_set() or self._pending is None or self.ts is None:
                    return
            self._stop.wait(self._pacer.reserve(self._key))
            with self._lock:
                if self._stop.is_set() or self._pending is None:
                    return
                line, self._pending = self._pending, None
            msg = status_message(line)
            try:
                self._client.chat_update(channel=self.channel, ts=self.ts, text=msg.text,
                                         blocks=msg.blocks, parse="none")
                self.updates += 1
            except SlackApiError as exc:  # a lost stage line is harmless; keep answering
                log.warning("status_update_failed", error=exc.response.get("error"))

    def finish(self, messages: Sequence[Message]) -> list[str]:
        """Turn the status message into the first message; post the rest in the thread.
        Returns the ts of every message now showing the result."""
        with self._lock:
            self._stop.set()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        out: list[str] = []
        with self._io:
            for i, msg in enumerate(messages):
                time.sleep(self._pacer.reserve(self._key))
                if i == 0 and self.ts is not None:
                    try:
                        self._client.chat_update(channel=self.channel, ts=self.ts,
                                                 text=msg.text, blocks=msg.blocks,
                                                 parse="none")
                        out.append(self.ts)
                        continue
                    except SlackApiError as exc:  # status deleted by someone: post anew
                        log.warning("status_finish_update_failed",
                                    error=exc.response.get("error"))
                out.append(self._post(msg))
        return out

    def _post(self, msg: Message) -> str:
        # Document-derived text is escaped already; these make sure Slack adds no link
        # previews and links no names.
        resp = self._client.chat_postMessage(
            channel=self.channel, thread_ts=self.thread_ts, text=msg.text, blocks=msg.blocks,
            unfurl_links=False, unfurl_media=False, link_names=False)
        return str(resp["ts"])
