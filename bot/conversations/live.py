"""The live status message of a turn: posted at once, updated at each stage no more than
once a slot per thread (``pacing``), then replaced by the answer, all through the
``Surface`` port.

The agent's ``on_stage`` callback only records the latest stage and arms a timer, so the
agent never waits on the surface; the timer thread does the write when the thread's next
slot comes (a timed wait, never a busy loop). Stages that arrive faster than the slots are
coalesced: only the newest is shown.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import structlog

from bot.conversations.surface import SurfaceError

if TYPE_CHECKING:
    from bot.conversations.model import Place
    from bot.conversations.pacing import Pacer
    from bot.conversations.surface import Surface

log = structlog.get_logger("ragbot.conversations.live")


class LiveStatus:
    """One turn's status message in ``place``'s thread (``ts``: the message id of one
    already posted, for a turn taken over after a restart)."""

    def __init__(self, surface: Surface[Any], pacer: Pacer, place: Place, *,
                 ts: str | None = None) -> None:
        self._surface = surface
        self._pacer = pacer
        self.place = place
        self._key = place.thread_key
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
            self.ts = self._surface.post(self.place, self._surface.status_message(line))
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
            try:
                self._surface.update(self.place, self.ts, self._surface.status_message(line))
                self.updates += 1
            except SurfaceError as exc:  # a lost stage line is harmless; keep answering
                log.warning("status_update_failed", error=exc.code)

    def finish(self, messages: Sequence[Any]) -> list[str]:
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
                        self._surface.update(self.place, self.ts, msg)
                        out.append(self.ts)
                        continue
                    except SurfaceError as exc:  # status deleted by someone: post anew
                        log.warning("status_finish_update_failed", error=exc.code)
                out.append(self._surface.post(self.place, msg))
        return out
