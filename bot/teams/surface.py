"""Teams' implementation of the core's ``Surface`` port: activities rendered by ``render``
and sent through the Bot Connector (``connector``) to the turn's ``serviceUrl``.

How a turn shows, by chat (``Place.address["chat"]``):
- ``personal`` (1:1): Teams' streaming. The core's status post opens the stream (an
  informative update), status updates are further informative updates, and the update to
  the answer is the stream's final message, which keeps the stream's id.
  The answer's verified sentences join that stream as streaming updates (the text so far)
  before the final message.
- ``channel`` and ``groupChat``: a status message replying in the chain, edited per stage
  and finally into the answer. Teams refuses streaming there, so it is never used.
The core paces every write per thread, across processes, so nothing here throttles.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import structlog

from bot.conversations import texts
from bot.conversations.model import KINDS
from bot.conversations.surface import SurfaceError
from bot.teams import render
from bot.teams.connector import ConnectorError

if TYPE_CHECKING:
    from agent.types import AnswerResult, Clarification
    from bot.conversations.model import ConversationKind, Place
    from bot.teams.connector import Connector

log = structlog.get_logger("ragbot.teams.surface")

SURFACE = "teams"
# A stream's updates need increasing sequence numbers, but a turn's updates come from two
# processes (the first from the serving process, the rest from a worker), so no counter
# can be shared: tenths of a second since 2025 increase between writes the core paces at
# least a second apart, and fit Teams' 32-bit integer until 2031.
_SEQUENCE_EPOCH_S = 1_735_689_600


@dataclass(frozen=True)
class TeamsMessage:
    """A rendered message: the activity, and whether it is a turn's live status (in a 1:1
    chat that is a stream update, not a message)."""

    activity: dict[str, Any]
    kind: Literal["status", "final"] = "final"


def target(place: Place) -> str:
    """The conversation id to post to: a channel's reply chain, else the chat."""
    if place.address.get("chat") == "channel" and place.thread:
        return f"{place.conversation};messageid={place.thread}"
    return place.conversation


class TeamsSurface:
    """Sends through ``connector``; admins are Entra object ids; ``bot_id`` and ``tenant``
    open a 1:1 chat to tell one user something."""

    name = SURFACE

    def __init__(self, connector: Connector, *, admins: Sequence[str] = (),
                 link_hosts: Sequence[str] = (), bot_id: str = "", tenant: str = "") -> None:
        self.connector = connector
        self.admins = frozenset(admins)
        self.link_hosts = tuple(link_hosts)
        self.bot_id = bot_id
        self.tenant = tenant

    # ------------------------------------------------------------ rendering

    def status_message(self, line: str) -> TeamsMessage:
        return TeamsMessage(render.text_message(line), "status")

    def answer_messages(self, result: AnswerResult, *, lang: str,
                        notes: Sequence[str] = ()) -> list[TeamsMessage]:
        return [TeamsMessage(render.answer_message(result.text, result.citations, notes=notes,
                                                   link_hosts=self.link_hosts))]

    def clarify_messages(self, clarification: Clarification, *,
                         lang: str) -> list[TeamsMessage]:
        # the click finds its thread from the card's message (bot_messages), so the card
        # carries only the choice
        return [TeamsMessage(render.clarify_card(
            clarification.question, clarification.options, run={},
            hint=texts.pick(texts.CLARIFY_HINT, lang)))]

    def notice_message(self, text: str) -> TeamsMessage:
        return TeamsMessage(render.text_message(text))

    # ------------------------------------------------------------ delivery

    def post(self, place: Place, message: TeamsMessage) -> str:
        service = _service(place)
        reply_to = place.address.get("replyTo")
        activity = dict(message.activity)
        if message.kind == "status" and _streams(place):
            activity = render.informative(str(activity.get("text") or ""), 1, None)
        if reply_to:
            activity["replyToId"] = reply_to
        try:
            return self.connector.create(service, target(place), activity)
        except ConnectorError as exc:
            raise SurfaceError(f"teams_{exc.status or 'error'}") from exc

    def update(self, place: Place, message_id: str, message: TeamsMessage) -> None:
        service = _service(place)
        try:
            if _streams(place):
                if message.kind == "status":
                    self.connector.create(service, target(place), render.informative(
                        str(message.activity.get("text") or ""), _sequence(), message_id))
                else:
                    self.connector.create(service, target(place),
                                          render.stream_final(message.activity, message_id))
                return
            self.connector.update(service, target(place), message_id, message.activity)
        except ConnectorError as exc:
            raise SurfaceError(f"teams_{exc.status or 'error'}") from exc

    def open_answer_stream(self, place: Place, user: str, status_id: str | None,
                           text: str) -> str | None:
        """The 1:1 stream the status post opened; channels and group chats cannot stream."""
        if not _streams(place) or status_id is None:
            return None
        self.append_answer_stream(place, status_id, text, text)
        return status_id

    def append_answer_stream(self, place: Place, stream_id: str, text: str,
                             added: str) -> None:
        """Each streaming update carries the whole text so far, as Teams expects."""
        try:
            self.connector.create(_service(place), target(place),
                                  render.streaming(text, _sequence(), stream_id))
        except ConnectorError as exc:
            raise SurfaceError(f"teams_{exc.status or 'error'}") from exc

    def close_answer_stream(self, place: Place, stream_id: str, status_id: str | None,
                            message: TeamsMessage) -> str:
        self.update(place, stream_id, message)  # the stream's final message
        return stream_id

    def notify_user(self, place: Place, user: str, text: str) -> bool:
        """In the 1:1 chat with ``user``: this one when it is theirs, else one opened
        (or found again) through the connector."""
        service = place.address.get("serviceUrl")
        if not service or not user:
            log.warning("teams_notify_without_route", has_service=bool(service))
            return False
        try:
            if place.address.get("chat") == "personal" and place.address.get("asker") == user:
                conversation = place.conversation
            else:
                conversation = self.connector.open_personal_chat(
                    service, bot_id=self.bot_id, user=user,
                    tenant=place.workspace or self.tenant)
            self.connector.create(service, conversation, render.text_message(text))
        except Exception as exc:  # the connector is down or refused: the caller logs it
            log.warning("notify_user_failed", error=type(exc).__name__)
            return False
        return True

    def show_busy(self, place: Place, text: str) -> None:
        """Nothing: the 1:1 stream and the channel status message already show progress,
        and a typing indicator would only flicker beside them."""

    # ------------------------------------------------------------ the conversation

    def conversation_kind(self, place: Place) -> ConversationKind:
        kind = place.address.get("kind")
        for known in KINDS:
            if kind == known:
                return known
        return "public"

    def groups(self, user: str) -> tuple[str, ...]:
        return ()  # Entra groups are not read (yet): documents for groups stay hidden

    def is_admin(self, user: str) -> bool:
        return bool(user) and user in self.admins


def _streams(place: Place) -> bool:
    return place.address.get("chat") == "personal"


def _service(place: Place) -> str:
    service = place.address.get("serviceUrl")
    if not service:
        raise SurfaceError("teams_no_service_url")
    return service


def _sequence() -> int:
    return int(time.time() * 10) - _SEQUENCE_EPOCH_S * 10
