"""An in-memory chat surface that implements the core's ``Surface`` port, as errbot's test
backend does for errbot: the whole conversation core runs against it with no network and
no chat SDK. It records every write with its time, so tests can check what was said,
where, and how fast."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.conversations.surface import SurfaceError

if TYPE_CHECKING:
    from agent.types import AnswerResult, Clarification
    from bot.conversations.model import ConversationKind, Place


@dataclass(frozen=True)
class FakeMessage:
    kind: str  # "status", "answer", "clarify", "notice"
    text: str
    result: AnswerResult | None = None
    options: tuple[str, ...] = ()


@dataclass
class Write:
    op: str  # "post", "update" or "append" (to an answer stream)
    place: Place
    message_id: str
    message: FakeMessage
    at: float = field(default_factory=time.monotonic)


class FakeSurface:
    """``name`` is the surface label; ``kinds`` maps conversation ids to their kind
    (default public); ``admins`` may run admin commands."""

    def __init__(self, name: str = "fake", *, kinds: dict[str, ConversationKind] | None = None,
                 admins: Sequence[str] = (), groups: dict[str, tuple[str, ...]] | None = None,
                 answer_limit: int = 400, streams: bool = False) -> None:
        self.name = name
        self.kinds = dict(kinds or {})
        self.admins = set(admins)
        self._groups = dict(groups or {})
        self.answer_limit = answer_limit  # characters a message may hold, like a real surface
        self.lock = threading.Lock()
        self.writes: list[Write] = []
        self.messages: dict[str, FakeMessage] = {}
        self.notes: list[tuple[Place, str, str]] = []  # (place, user, text)
        self.busy: list[tuple[Place, str]] = []
        self.deleted: set[str] = set()  # message ids someone deleted: updates fail
        self.streams = streams  # whether answers may stream (else open answers None)
        self.streamed: dict[str, list[str]] = {}  # stream id -> each text it showed
        self.fail_streams = False  # opening a stream fails (the service refuses it)
        self._ids = itertools.count(1)

    # rendering
    def status_message(self, line: str) -> FakeMessage:
        return FakeMessage("status", line)

    def answer_messages(self, result: AnswerResult, *, lang: str,
                        notes: Sequence[str] = ()) -> list[FakeMessage]:
        body = "\n".join([result.text, *notes, *(f"[{c.n}] {c.title}" for c in result.citations)])
        pieces = [body[i:i + self.answer_limit]
                  for i in range(0, max(len(body), 1), self.answer_limit)]
        return [FakeMessage("answer", p, result=result) for p in pieces]

    def clarify_messages(self, clarification: Clarification, *,
                         lang: str) -> list[FakeMessage]:
        return [FakeMessage("clarify", clarification.question,
                            options=tuple(clarification.options[:3]))]

    def notice_message(self, text: str) -> FakeMessage:
        return FakeMessage("notice", text)

    # delivery
    def post(self, place: Place, message: FakeMessage) -> str:
        with self.lock:
            message_id = f"m{next(self._ids)}"
            self.messages[message_id] = message
            self.writes.append(Write("post", place, message_id, message))
            return message_id

    def update(self, place: Place, message_id: str, message: FakeMessage) -> None:
        with self.lock:
            if message_id in self.deleted or message_id not in self.messages:
                raise SurfaceError("message_not_found")
            self.messages[message_id] = message
            self.writes.append(Write("update", place, message_id, message))

    def open_answer_stream(self, place: Place, user: str, status_id: str | None,
                           text: str) -> str | None:
        if not self.streams:
            return None
        if self.fail_streams:
            raise SurfaceError("streaming_failed")
        message_id = self.post(place, FakeMessage("answer", text))
        with self.lock:
            self.streamed[message_id] = [text]
        return message_id

    def append_answer_stream(self, place: Place, stream_id: str, text: str,
                             added: str) -> None:
        with self.lock:
            if stream_id not in self.streamed:
                raise SurfaceError("stream_not_found")
            self.streamed[stream_id].append(text)
            self.messages[stream_id] = FakeMessage("answer", text)
            self.writes.append(Write("append", place, stream_id, self.messages[stream_id]))

    def close_answer_stream(self, place: Place, stream_id: str, status_id: str | None,
                            message: FakeMessage) -> str:
        self.update(place, stream_id, message)
        if status_id is not None:
            with self.lock:
                self.messages.pop(status_id, None)  # the status message goes
        return stream_id

    def notify_user(self, place: Place, user: str, text: str) -> bool:
        with self.lock:
            self.notes.append((place, user, text))
        return True

    def show_busy(self, place: Place, text: str) -> None:
        with self.lock:
            self.busy.append((place, text))

    # the conversation
    def conversation_kind(self, place: Place) -> ConversationKind:
        return self.kinds.get(place.conversation, "public")

    def groups(self, user: str) -> tuple[str, ...]:
        return self._groups.get(user, ())

    def is_admin(self, user: str) -> bool:
        return user in self.admins

    # what tests read
    def shown(self, kind: str | None = None) -> list[FakeMessage]:
        """The messages as they show now, oldest first (optionally of one kind)."""
        with self.lock:
            shown = list(self.messages.values())
        return [m for m in shown if kind is None or m.kind == kind]

    def writes_in(self, thread_key: str) -> list[Write]:
        with self.lock:
            return [w for w in self.writes if w.place.thread_key == thread_key]
