"""Teams activities -> the core's inbound model. Pure functions: no network, no database.

Conversations (``conversation.conversationType``):
- ``personal`` (1:1): every message is a question;
- ``channel``: a question when the bot is @mentioned; the reply chain is the thread
  (``conversation.id`` ends ``;messageid=<root>``), so a reply in a chain the bot answered
  is a follow-up without a mention (the surface checks "answered");
- ``groupChat``: only when mentioned.
1:1 and group chats have no reply chains: their thread key is the conversation's base key
session ``t<n>`` that a quiet gap or "new" / "新问题" moves on
(``store.conversations.chat_session``).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any, Literal

from bot.conversations.model import (
    ConversationKind,
    Inbound,
    Place,
    access,
    cut_question,
)

SURFACE = "teams"
ChatType = Literal["personal", "channel", "groupChat"]

NEW_THREAD_WORDS = frozenset({"new", "新问题"})

_AT = re.compile(r"<at[^>]*>(.*?)</at>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]{0,200}>")
_SPACE = re.compile(r"[ \t\u00a0]+")


@dataclass(frozen=True)
class TeamsQuestion:
    """A human message addressed to the bot."""

    tenant: str
    conversation_id: str  # as sent: a channel's includes ``;messageid=<root>``
    chat_type: ChatType
    kind: ConversationKind
    channel_id: str | None  # the Teams channel id (channels only)
    activity_id: str
    user: str  # the sender's Entra object id (aadObjectId), else the channel account id
    text: str  # plain text, the bot's mention removed, cut to MAX_QUESTION_CHARS
    truncated: bool
    mentioned: bool
    is_reply: bool  # a reply inside an existing channel reply chain
    service_url: str
    starts_new_thread: bool  # "new" / "新问题" in a 1:1 or group chat

    @property
    def base_key(self) -> str:
        """``teams:{tenant}:{conversation id}``: a channel reply chain's thread key; in 1:1
        and group chats the prefix of each session's key."""
        return f"teams:{self.tenant}:{self.conversation_id}"

    @property
    def has_reply_chains(self) -> bool:
        return self.chat_type == "channel"

    @property
    def conversation(self) -> str:
        """The core's conversation: the channel (Teams' id before ``;messageid=``), or
        the chat."""
        return self.conversation_id.partition(";messageid=")[0]

    @property
    def root(self) -> str:
        """A channel message's reply-chain root (its own id when it starts one)."""
        return self.conversation_id.partition(";messageid=")[2] or self.activity_id

    @property
    def principals(self) -> tuple[str, ...]:
        """What an answer here may use (everyone in the conversation sees it)."""
        return access(self.kind, conversation=self.conversation, asker=self.user).principals

    def place(self, thread: str, *, reply_to: str | None = None) -> Place:
        """The core's place of this message in ``thread`` (a channel's root, a chat's
        session); the address keeps what a turn needs to answer after a restart."""
        key = self.base_key if self.has_reply_chains else None
        return Place(SURFACE, self.tenant, self.conversation, thread, {
            "serviceUrl": self.service_url, "chat": self.chat_type, "kind": self.kind,
            "replyTo": reply_to or self.activity_id, "asker": self.user}, key=key)

    def inbound(self, thread: str) -> Inbound:
        """The core's ``Inbound`` of this message in ``thread``."""
        return Inbound(place=self.place(thread), message_id=self.activity_id, asker=self.user,
                       text=self.text, truncated=self.truncated,
                       delivery_id=self.activity_id, kind=self.kind)


def ignore_reason(activity: dict[str, Any]) -> str | None:
    """Why ``activity`` is not a message to consider, or None."""
    if activity.get("type") != "message":
        return f"type:{activity.get('type')}"
    sender = activity.get("from") or {}
    recipient = activity.get("recipient") or {}
    if sender.get("id") and sender.get("id") == recipient.get("id"):
        return "own_message"
    if sender.get("role") == "bot" or str(sender.get("id", "")).startswith("28:"):
        return "bot"  # Bot Framework ids of bots start with "28:"
    if not (activity.get("conversation") or {}).get("id"):
        return "no_conversation"
    if not activity.get("serviceUrl"):
        return "no_service_url"
    return None


def tenant_of(activity: dict[str, Any]) -> str:
    conversation = activity.get("conversation") or {}
    channel_data = activity.get("channelData") or {}
    return str(conversation.get("tenantId") or (channel_data.get("tenant") or {}).get("id")
               or "")


def kind_of(activity: dict[str, Any], *, home_tenant: str | None) -> ConversationKind:
    """The access class. Another tenant is checked first: a shared channel, a guest from
    another organisation, or a conversation hosted elsewhere never gets restricted
    documents, whatever else it is. A group chat has no access identity of its own in
    Teams, so it is public."""
    conversation = activity.get("conversation") or {}
    channel_data = activity.get("channelData") or {}
    sender = activity.get("from") or {}
    tenants = {tenant_of(activity), str(sender.get("tenantId") or "")} - {""}
    if home_tenant and any(t != home_tenant for t in tenants):
        return "external-shared"
    chat = conversation.get("conversationType")
    if chat == "personal":
        return "direct"
    if chat == "groupChat":
        return "public"
    channel_type = (channel_data.get("channel") or {}).get("type") or \
        (channel_data.get("channel") or {}).get("membershipType")
    if channel_type == "shared":
        return "external-shared"
    if channel_type == "private":
        return "private"
    return "public"


def is_mentioned(activity: dict[str, Any]) -> bool:
    bot_id = (activity.get("recipient") or {}).get("id")
    return any(e.get("type") == "mention" and (e.get("mentioned") or {}).get("id") == bot_id
               for e in activity.get("entities") or [])


def plain_text(activity: dict[str, Any]) -> str:
    """The text a person meant: the bot's ``<at>`` mention removed, other mentions as
    ``@Name``, markup dropped, entities decoded."""
    text = str(activity.get("text") or "")
    bot_id = (activity.get("recipient") or {}).get("id")
    for entity in activity.get("entities") or []:
        if entity.get("type") == "mention" and (entity.get("mentioned") or {}).get("id") == bot_id:
            mention = str(entity.get("text") or "")
            if mention:
                text = text.replace(mention, " ")
    text = _AT.sub(lambda m: "@" + m.group(1), text)
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    return _SPACE.sub(" ", text).strip()


def question(activity: dict[str, Any], *, home_tenant: str | None) -> TeamsQuestion:
    """The question a message activity carries (call ``ignore_reason`` first)."""
    conversation = activity.get("conversation") or {}
    channel_data = activity.get("channelData") or {}
    sender = activity.get("from") or {}
    chat = conversation.get("conversationType")
    chat_type: ChatType = "channel" if chat == "channel" else \
        "groupChat" if chat == "groupChat" else "personal"
    conversation_id = str(conversation["id"])
    text, truncated = cut_question(plain_text(activity))
    activity_id = str(activity.get("id") or "")
    root = conversation_id.partition(";messageid=")[2]
    channel = (channel_data.get("channel") or {}).get("id") or channel_data.get("teamsChannelId")
    return TeamsQuestion(
        tenant=tenant_of(activity) or (home_tenant or ""),
        conversation_id=conversation_id,
        chat_type=chat_type,
        kind=kind_of(activity, home_tenant=home_tenant),
        channel_id=str(channel) if channel and chat_type == "channel" else None,
        activity_id=activity_id,
        user=str(sender.get("aadObjectId") or sender.get("id") or ""),
        text=text,
        truncated=truncated,
        mentioned=is_mentioned(activity),
        is_reply=bool(chat_type == "channel" and root and root != activity_id),
        service_url=str(activity["serviceUrl"]),
        starts_new_thread=chat_type != "channel"
        and text.strip(" .!。！?？").lower() in NEW_THREAD_WORDS,
    )


Route = Literal["answer", "maybe_follow_up", "ignore"]


def route(q: TeamsQuestion) -> Route:
    """Whether to answer: 1:1 always; channels and group chats when mentioned; an
    unmentioned reply in a channel chain only if the bot answered that chain (the caller
    checks)."""
    if q.chat_type == "personal" or q.mentioned:
        return "answer"
    if q.chat_type == "channel" and q.is_reply:
        return "maybe_follow_up"
    return "ignore"
