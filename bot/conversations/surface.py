"""The Surface port: everything the core asks of a chat surface.

The core decides *what* to say and *when* (accept once, the turn, pacing, apology, votes,
commands); a surface decides only *how* it looks and *how* it travels. Two halves:

- rendering, pure: the core's content -> the surface's own message type (Slack: text +
  Block Kit; Teams: an activity with an Adaptive Card). The core never looks inside one.
- delivery: post a rendered message into a thread, update one in place, tell one user
  something only they see, show that the bot is busy.

Every write of a turn goes through ``post`` or ``update`` and the core paces them (at least
``interval_s`` apart per thread, shared across processes), so a surface needs no throttle
of its own. A turn's status message is posted with ``post(place, status_message(line))``,
updated at each stage, and finally updated to the first answer message; the others are
posted after it. A surface that streams (Teams in 1:1 chats) maps these onto its stream:
the first status post opens it, status updates are informative updates, the update to an
answer message ends it; its message type tells which is which.

The answer itself may stream too, sentence by sentence as the agent verifies it: the core
opens an answer stream with the first verified text, appends each verified sentence, and
closes it with the final answer message (``*_answer_stream``). A surface or conversation
that cannot stream answers ``None`` when asked to open one, and the final message then
replaces the status as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from agent.types import AnswerResult, Clarification
    from bot.conversations.model import ConversationKind, Place

Msg = TypeVar("Msg")


class SurfaceError(Exception):
    """A write the surface could not make (the message was deleted, a missing scope, the
    service refused it). ``code`` is the surface's short error name, safe to log; the
    core logs it and carries on (a lost stage line, a note that could not be sent)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Surface(Protocol[Msg]):
    """A chat surface the core answers through (Slack now, Teams next; a fake in tests).

    Implementations must be safe to call from several threads at once: a turn's status
    updates run on a timer thread beside the turn itself."""

    @property
    def name(self) -> str:
        """The surface's label ("slack", "teams"): ``Place.surface``, journal, metrics."""
        ...

    # ------------------------------------------------------------ rendering (pure)

    def status_message(self, line: str) -> Msg:
        """The live status of a turn (``line`` is the agent's stage text or "Thinking…")."""
        ...

    def answer_messages(self, result: AnswerResult, *, lang: str,
                        notes: Sequence[str] = ()) -> Sequence[Msg]:
        """An answer with its numbered sources, split within the surface's limits.
        ``result.text`` and citation titles come from documents: render them as inert
        text (no mentions, no links but allowed source links). ``notes`` are the core's
        own words (texts.py) shown small under the answer."""
        ...

    def clarify_messages(self, clarification: Clarification, *,
                         lang: str) -> Sequence[Msg]:
        """The clarifying question with its options as buttons (at most three) and the
        hint that a free-text reply works too. A click must reach the core as an
        ``Inbound`` resume of the same thread (``turns.accept(..., kind="resume")``)."""
        ...

    def notice_message(self, text: str) -> Msg:
        """A short message in the core's own words: help, apology, "restarted"."""
        ...

    # ------------------------------------------------------------ delivery

    def post(self, place: Place, message: Msg) -> str:
        """Post ``message`` in ``place``'s thread; the new message's id. Raises on
        failure (``SurfaceError`` or the client's own error)."""
        ...

    def update(self, place: Place, message_id: str, message: Msg) -> None:
        """Replace the message ``message_id`` with ``message``. Raises ``SurfaceError``
        when it cannot (deleted): the core then posts the message anew."""
        ...

    def open_answer_stream(self, place: Place, user: str, status_id: str | None,
                           text: str) -> str | None:
        """Start showing the answer with its first verified ``text`` (for ``user``, the
        asker); the stream's message id, or None where this conversation cannot stream.
        Raises ``SurfaceError`` when the stream could not be started."""
        ...

    def append_answer_stream(self, place: Place, stream_id: str, text: str,
                             added: str) -> None:
        """The verified answer grew to ``text`` (``added`` is the new end). Raises
        ``SurfaceError`` on failure: the core then waits for the final message."""
        ...

    def close_answer_stream(self, place: Place, stream_id: str, status_id: str | None,
                            message: Msg) -> str:
        """End the stream as ``message`` (the final answer with its sources, in the
        stream's message) and tidy the status message; the id of the message now showing
        the answer. Raises ``SurfaceError`` when the stream cannot be ended."""
        ...

    def notify_user(self, place: Place, user: str, text: str) -> bool:
        """Tell ``user`` alone (Slack: ephemeral in the conversation, else a DM; Teams:
        the 1:1 chat). True when it was delivered. Never raises."""
        ...

    def show_busy(self, place: Place, text: str) -> None:
        """Show that the bot is working (Slack's assistant thread status, Teams' typing
        indicator); ``text`` "" clears it. A courtesy: never raises."""
        ...

    # ------------------------------------------------------------ the conversation

    def conversation_kind(self, place: Place) -> ConversationKind:
        """The access class of ``place``'s conversation. A lookup that fails must answer
        ``"public"``: an unknown audience never sees restricted text."""
        ...

    def groups(self, user: str) -> tuple[str, ...]:
        """The user groups ``user`` belongs to, among those access lists name."""
        ...

    def is_admin(self, user: str) -> bool:
        """May ``user`` run admin commands (``reindex``, the full ``status``)?"""
        ...
