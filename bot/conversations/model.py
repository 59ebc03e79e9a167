"""The inbound model: a question in the core's terms, whatever surface it came from.

A surface translates its own event (a Slack ``app_mention``, a Teams message activity) into
an ``Inbound``; from there on the core never looks at the surface's wire format. Pure data
and pure functions: no client, no database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from store.types import principals_for

# Who can see what the bot writes in a conversation, which bounds what it may retrieve:
# public: a channel anyone in the workspace can join (Slack public channel, Teams standard
#   channel); private: a channel with a member list (its own access principal);
# direct: the asker and the bot alone (Slack DM, Teams 1:1 chat);
# external-shared: members of another organization are in it (Slack Connect, a Teams
#   shared channel or a guest from another tenant): never restricted documents;
# group: a closed chat of a few people (Slack's multi-person DM): its own principal, like a
#   private channel. A surface whose group chats have no access identity of their own
#   (Teams group chats) reports them as ``public``.
ConversationKind = Literal["public", "private", "direct", "external-shared", "group"]

KINDS: tuple[ConversationKind, ...] = ("public", "private", "direct", "external-shared",
                                       "group")


@dataclass(frozen=True)
class Place:
    """Where a turn is answered: one thread of one conversation on one surface.

    ``address`` is the surface's own routing data that must survive a restart with the
    turn (Teams: the activity's ``serviceUrl``); never a secret, it is stored in the
    journal."""

    surface: str  # "slack", "teams": the journal's and the metrics' label
    workspace: str  # Slack team id, Teams tenant id
    conversation: str  # Slack channel id, Teams conversation id
    thread: str  # Slack thread ts, Teams reply-chain root or chat session id
    address: Mapping[str, str] = field(default_factory=dict)
    # The surface's own thread key, when it is not surface:workspace:conversation:thread
    # (a Teams reply chain keeps ``teams:{tenant}:{conversation id};messageid={root}``).
    key: str | None = None

    @property
    def thread_key(self) -> str:
        """The agent's thread id: every turn of this thread shares its memory."""
        if self.key:
            return self.key
        return thread_key(self.surface, self.workspace, self.conversation, self.thread)


def thread_key(surface: str, workspace: str, conversation: str, thread: str) -> str:
    """``surface:workspace:conversation:thread``. Slack's threads keep the key they had
    before the core existed (``slack:T…:C…:ts``), so their checkpoints stay theirs."""
    return f"{surface}:{workspace}:{conversation}:{thread}"


@dataclass(frozen=True)
class Inbound:
    """A human message addressed to the bot, before the core accepts it."""

    place: Place
    message_id: str  # Slack ts, Teams activity id: unique within the conversation
    asker: str  # the surface's user id (Slack U…, Teams Entra object id)
    text: str  # plain text, the bot's mention removed, cut to MAX_QUESTION_CHARS
    truncated: bool = False
    # The delivery's own id (Slack event_id, Teams activity id): a redelivery of it is
    # dropped before anything else. None when the surface has none.
    delivery_id: str | None = None
    # The conversation's kind when the event says it (a Teams activity does); None: the
    # surface looks it up when the turn runs (Slack: conversations.info, cached).
    kind: ConversationKind | None = None
    # The knowledge bases that answer here; empty: the conversation's binding decides
    # (``ConversationKbs``).
    kbs: tuple[str, ...] = ()


MAX_QUESTION_CHARS = 4000


def cut_question(text: str) -> tuple[str, bool]:
    """``text`` within ``MAX_QUESTION_CHARS`` and whether it was cut."""
    if len(text) > MAX_QUESTION_CHARS:
        return text[:MAX_QUESTION_CHARS], True
    return text, False


@dataclass(frozen=True)
class Access:
    """What a turn may read: ``principals`` bound the answer everyone in the conversation
    sees; ``asker_principals`` are what the asker may read alone, used only to tell the
    asker (and nobody else) that restricted documents exist."""

    principals: tuple[str, ...]
    asker_principals: tuple[str, ...]


def principals(kind: ConversationKind, *, conversation: str, asker: str,
               groups: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What may be retrieved in a conversation of ``kind``. The answer is visible to
    everyone in it, so the conversation, not only the asker, bounds it."""
    if kind in ("public", "external-shared"):
        return principals_for(public_only=True)
    if kind in ("private", "group"):
        return principals_for(channel=conversation)
    return principals_for(user=asker, groups=groups)


def access(kind: ConversationKind, *, conversation: str, asker: str,
           groups: tuple[str, ...] = ()) -> Access:
    """The ``Access`` of ``asker`` in a conversation of ``kind``."""
    return Access(
        principals=principals(kind, conversation=conversation, asker=asker, groups=groups),
        asker_principals=principals("direct", conversation=conversation, asker=asker,
                                    groups=groups))


@dataclass(frozen=True)
class ConversationKbs:
    """Which knowledge bases answer in a conversation: ``bindings`` per conversation id,
    else ``default``. A tuple, so a conversation may be bound to several."""

    default: tuple[str, ...] = ("default",)
    bindings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # direct messages (``RAGBOT_DM_KBS``); ("*",): every KB; empty: ``default``
    direct: tuple[str, ...] = ()

    def for_conversation(self, conversation: str, *, direct: bool = False
                         ) -> tuple[str, ...]:
        """The knowledge bases that answer in ``conversation`` (``direct``: a DM)."""
        if conversation in self.bindings:
            return self.bindings[conversation]
        return self.direct if direct and self.direct else self.default
