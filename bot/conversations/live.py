"""The live status message of a turn: posted at once, updated at each stage no more than
once a slot per thread (``pacing``), then replaced by the answer, all through the
``Surface`` port.

The agent's ``on_stage`` callback only records the latest stage and arms a timer, so the
agent never waits on the surface; the timer thread does the write when the thread's next
slot comes (a timed wait, never a busy loop). Stages that arrive faster than the slots are
coalesced: only the newest is shown.

The verified answer so far (``answer``) travels the same way: at the next slot it opens the
surface's answer stream or appends what it added; from then on stage lines are no longer
shown, and ``finish`` closes the stream with the final message. Where the surface cannot
stream, or a stream write fails, the answer waits for ``finish`` as before; so does an
answer complete before the thread's next slot (one final message instead of three writes).
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
                 ts: str | None = None, asker: str = "") -> None:
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
        self._asker = asker
        self._answer: str | None = None  # the verified answer not yet shown
        self._streamed = ""  # what the answer stream shows
        self.stream_id: str | None = None
        self._no_stream = False  # the surface cannot stream here, or a write failed

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
            self._arm()

    def answer(self, text: str) -> None:
        """Record the verified answer so far (cumulative); streamed at the next slot."""
        with self._lock:
            if self._stop.is_set() or self._no_stream:
                return
            self._answer = text
            self._arm()

    def _arm(self) -> None:
        if self._timer is None:
            self._timer = threading.Timer(self._pacer.wait_hint(self._key), self._flush)
            self._timer.daemon = True
            self._timer.start()

    def _flush(self) -> None:
        with self._io:
            with self._lock:
                self._timer = None
                if (self._stop.is_set() or self.ts is None
                        or (self._pending is None and self._answer is None)):
                    return
            self._stop.wait(self._pacer.reserve(self._key))
            with self._lock:
                if self._stop.is_set():
                    return
                answer, self._answer = self._answer, None
                line, self._pending = self._pending, None
            if answer is not None:
                self._stream(answer)
                if self.stream_id is not None:
                    return  # the answer shows now: stage lines are over
            if line is None:
                return
            try:
                self._surface.update(self.place, self.ts, self._surface.status_message(line))
                self.updates += 1
            except SurfaceError as exc:  # a lost stage line is harmless; keep answering
                log.warning("status_update_failed", error=exc.code)

    def _stream(self, text: str) -> None:
        """Open the answer stream with ``text`` or append what it adds (a text that does
        not extend what is shown, a rewritten draft, waits for ``finish``)."""
        try:
            if self.stream_id is None:
                self.stream_id = self._surface.open_answer_stream(self.place, self._asker,
                                                                  self.ts, text)
                if self.stream_id is None:
                    self._no_stream = True
                    return
            elif text.startswith(self._streamed) and text != self._streamed:
                self._surface.append_answer_stream(self.place, self.stream_id, text,
                                                   text[len(self._streamed):])
            else:
                return
            self._streamed = text
        except SurfaceError as exc:
            log.warning("answer_stream_failed", error=exc.code, opened=self.stream_id is not None)
            self._no_stream = True

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
            if self.stream_id is not None and messages:
                time.sleep(self._pacer.reserve(self._key))
                try:
                    out.append(self._surface.close_answer_stream(self.place, self.stream_id,
                                                                 self.ts, messages[0]))
                    messages = messages[1:]
                except SurfaceError as exc:  # the final message goes out as without a stream
                    log.warning("answer_stream_close_failed", error=exc.code)
            for i, msg in enumerate(messages):
                time.sleep(self._pacer.reserve(self._key))
                if i == 0 and self.ts is not None and not out:
                    try:
                        self._surface.update(self.place, self.ts, msg)
                        out.append(self.ts)
                        continue
                    except SurfaceError as exc:  # status deleted by someone: post anew
                        log.warning("status_finish_update_failed", error=exc.code)
                out.append(self._surface.post(self.place, msg))
        return out
