"""What the asker sees while a Teams turn runs, and the answer replacing it.

- 1:1 chats: Teams' streaming protocol (informative typing updates with a stream id and
  sequence, then the final message carrying ``streamType: final``).
- Channels and group chats: a status message edited at each stage, then edited into the
  answer. Teams refuses streaming there (the SDK's stream fails silently), so it is never
  used. Edits go no faster than the shared per-thread pacer allows: a stage that arrives
  before its slot is skipped, as the next stage or the answer supersedes it anyway.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from bot.teams import render

if TYPE_CHECKING:
    from bot.conversations.pacing import Pacer
    from bot.teams.connector import Connector

log = structlog.get_logger("ragbot.teams.progress")


class Progress(Protocol):
    def start(self, text: str) -> None: ...
    def stage(self, text: str) -> None: ...
    def finish(self, activity: dict[str, Any]) -> str:
        """Show the final activity; its id."""
        ...


class StreamProgress:
    """1:1: informative stream updates, then the final streamed message."""

    def __init__(self, connector: Connector, *, service_url: str, conversation_id: str,
                 reply_to: str, pacer: Pacer, key: str) -> None:
        self._c = connector
        self._service = service_url
        self._conv = conversation_id
        self._reply_to = reply_to
        self._pacer = pacer
        self._key = key
        self._stream_id: str | None = None
        self._sequence = 0

    def start(self, text: str) -> None:
        self._send(text)

    def stage(self, text: str) -> None:
        if self._stream_id is not None and self._pacer.wait_hint(self._key) > 0:
            return
        self._send(text)

    def _send(self, text: str) -> None:
        self._sequence += 1
        self._pacer.reserve(self._key)
        try:
            update = {**render.informative(text, self._sequence, self._stream_id),
                      "replyToId": self._reply_to}
            sent = self._c.create(self._service, self._conv, update)
            self._stream_id = self._stream_id or sent
        except Exception as exc:  # progress is a courtesy; the answer still comes
            log.warning("teams_stream_update_failed", error=type(exc).__name__)

    def finish(self, activity: dict[str, Any]) -> str:
        if self._stream_id is None:
            return self._c.create(self._service, self._conv,
                                  {**activity, "replyToId": self._reply_to})
        final = render.stream_final(activity, self._stream_id)
        self._c.create(self._service, self._conv, final)
        return self._stream_id


class StatusProgress:
    """Channels and group chats: one status message edited per stage, then into the
    answer."""

    def __init__(self, connector: Connector, *, service_url: str, conversation_id: str,
                 reply_to: str, pacer: Pacer, key: str) -> None:
        self._c = connector
        self._service = service_url
        self._conv = conversation_id
        self._reply_to = reply_to
        self._pacer = pacer
        self._key = key
        self.message_id: str | None = None

    def start(self, text: str) -> None:
        self._pacer.reserve(self._key)
        try:
            self.message_id = self._c.create(self._service, self._conv, {
                **render.text_message(text), "replyToId": self._reply_to})
        except Exception as exc:
            log.warning("teams_status_post_failed", error=type(exc).__name__)

    def stage(self, text: str) -> None:
        if self.message_id is None or self._pacer.wait_hint(self._key) > 0:
            return
        self._pacer.reserve(self._key)
        try:
            self._c.update(self._service, self._conv, self.message_id,
                           render.text_message(text))
        except Exception as exc:
            log.warning("teams_status_update_failed", error=type(exc).__name__)

    def finish(self, activity: dict[str, Any]) -> str:
        if self.message_id is None:
            return self._c.create(self._service, self._conv,
                                  {**activity, "replyToId": self._reply_to})
        delay = self._pacer.reserve(self._key)
        if delay > 0:
            time.sleep(delay)  # the answer itself waits for its slot: never dropped
        self._c.update(self._service, self._conv, self.message_id, activity)
        return self.message_id
