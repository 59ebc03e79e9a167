"""Slack events -> channel-neutral questions (text, user, channel, thread key, access).

Pure functions: no Slack client, no database. The surface decides *whether* an event is a
question here; ``access`` decides what the asker may read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.conversations.model import MAX_QUESTION_CHARS, ConversationKind, Inbound, Place

SURFACE = "slack"

# Message subtypes that are a person writing something new. Everything else (edits,
# deletions, joins, bot messages, channel topic changes...) is not a question.
_QUESTION_SUBTYPES = {None, "file_share", "thread_broadcast"}

_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL = re.compile(r"<#([CG][A-Z0-9]+)(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<!([a-z]+)(?:\^[^|>]*)?(?:\|([^>]*))?>")
_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")


@dataclass(frozen=True)
class Incoming:
    """A human message addressed to the bot, before access and KB are decided."""

    team: str
    channel: str
    user: str
    text: str  # plain text, bot mention removed, cut to MAX_QUESTION_CHARS
    message_ts: str
    thread_ts: str  # the thread the answer goes to (the message itself when top-level)
    truncated: bool
    channel_type: str | None  # from the event when Slack sends it ("im", "channel"...)
    mentioned: bool  # the bot was @mentioned
    is_reply: bool  # the message was posted inside an existing thread

    @property
    def place(self) -> Place:
        """The thread the answer goes to, in the core's terms."""
        return Place(SURFACE, self.team, self.channel, self.thread_ts)

    @property
    def thread_key(self) -> str:
        return self.place.thread_key

    def inbound(self, delivery_id: str | None = None) -> Inbound:
        """The core's ``Inbound`` for this message."""
        # Slack's direct-message channel ids start with D (RAGBOT_DM_KBS binds them).
        direct = self.channel_type == "im" or self.channel.startswith("D")
        return Inbound(place=self.place, message_id=self.message_ts, asker=self.user,
                       text=self.text, truncated=self.truncated, delivery_id=delivery_id,
                       kind="direct" if direct else None)


def ignore_reason(event: dict[str, Any], bot_user_id: str | None,
                  bot_id: str | None = None) -> str | None:
    """Why ``event`` is not a human message to answer, or None when it is one."""
    subtype = event.get("subtype")
    if subtype not in _QUESTION_SUBTYPES:
        return f"subtype:{subtype}"
    if event.get("hidden"):
        return "hidden"
    if event.get("bot_id") or event.get("bot_profile"):
        return "own_message" if bot_id and event.get("bot_id") == bot_id else "bot"
    user = event.get("user")
    if not user:
        return "no_user"
    if bot_user_id and user == bot_user_id:
        return "own_message"
    return None


def plain_text(text: str, bot_user_id: str | None) -> str:
    """Slack markup to the plain text a person meant: the bot's mention removed, other
    mentions and links readable, entities decoded."""
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    text = _MENTION.sub(lambda mt: f"@{mt.group(1)}", text)
    text = _CHANNEL.sub(lambda mt: f"#{mt.group(2) or mt.group(1)}", text)
    text = _SPECIAL.sub(lambda mt: f"@{mt.group(2) or mt.group(1)}", text)
    text = _LINK.sub(lambda mt: f"{mt.group(2)} ({mt.group(1)})" if mt.group(2)
                     else mt.group(1), text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return re.sub(r"[ \t]+", " ", text).strip()


def mentions_other_user(text: str, bot_user_id: str | None) -> bool:
    """True when the raw text @mentions someone other than the bot."""
    return any(uid != bot_user_id for uid in _MENTION.findall(text))


def incoming(event: dict[str, Any], *, team: str, bot_user_id: str | None) -> Incoming:
    """The question an app_mention or message event carries (call ``ignore_reason`` first)."""
    raw = str(event.get("text") or "")
    text = plain_text(raw, bot_user_id)
    truncated = len(text) > MAX_QUESTION_CHARS
    if truncated:
        text = text[:MAX_QUESTION_CHARS]
    ts = str(event["ts"])
    parent = event.get("thread_ts")
    return Incoming(
        team=str(event.get("team") or team),
        channel=str(event["channel"]),
        user=str(event["user"]),
        text=text,
        message_ts=ts,
        thread_ts=str(parent or ts),
        truncated=truncated,
        channel_type=event.get("channel_type"),
        mentioned=event.get("type") == "app_mention"
        or bool(bot_user_id and f"<@{bot_user_id}" in raw),
        is_reply=bool(parent and parent != ts),
    )


def kind_from_info(info: dict[str, Any]) -> ConversationKind:
    """The access class of a conversation from its ``conversations.info`` record.

    External sharing is checked first: a Slack Connect channel or DM never gets
    restricted documents, whatever else it is.
    """
    if info.get("is_ext_shared") or info.get("is_pending_ext_shared"):
        return "external-shared"
    if info.get("is_im"):
        return "direct"
    if info.get("is_mpim"):
        return "group"
    if info.get("is_private") or info.get("is_group"):
        return "private"
    return "public"

