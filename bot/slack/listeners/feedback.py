"""👍/👎 reactions on the bot's answers become the core's votes (``bot.conversations.votes``).

``reaction_added`` records (or replaces) the reacting user's vote; ``reaction_removed``
withdraws it. Each reaction follows its latest event by Slack's ``event_ts``.
"""

from __future__ import annotations

import time
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from bot.conversations.votes import DOWN, UP, VoteDeps, record_vote
from bot.slack.translate import SURFACE

if TYPE_CHECKING:
    from slack_bolt import App

    from store.feedback import ReactionOutcome, Vote

_VOTES: dict[str, Vote] = {"+1": UP, "thumbsup": UP, "-1": DOWN, "thumbsdown": DOWN}


def vote_for_reaction(name: str | None) -> Vote | None:
    """The vote a reaction means (skin tones count the same), or None for other emoji."""
    base = (name or "").split("::", 1)[0]
    return _VOTES.get(base)


def _target(event: dict[str, Any]) -> tuple[str, str] | None:
    item = event.get("item") or {}
    if item.get("type") != "message" or not item.get("channel") or not item.get("ts"):
        return None
    return str(item["channel"]), str(item["ts"])


def event_time(event: dict[str, Any], body: dict[str, Any] | None = None) -> Decimal:
    """When Slack says the reaction happened: the event's ``event_ts`` (exact, the same on
    every redelivery), else the envelope's ``event_time`` (whole seconds)."""
    for value in (event.get("event_ts"), (body or {}).get("event_time")):
        try:
            return Decimal(str(value))
        except (InvalidOperation, ValueError):
            continue
    return Decimal(repr(time.time()))  # neither: arrival time is the best there is


def on_reaction(deps: VoteDeps, event: dict[str, Any], *, present: bool,
                body: dict[str, Any] | None = None,
                bot_user_id: str | None = None) -> ReactionOutcome | None:
    """Apply a ``reaction_added`` (``present``) or ``reaction_removed`` to the reacting
    user's vote. None when it is not a vote on one of the bot's answers."""
    vote, target, user = vote_for_reaction(event.get("reaction")), _target(event), event.get("user")
    if vote is None or target is None or not user or user == bot_user_id:
        return None
    channel, ts = target
    # item_user is the message's author: a vote on the bot's own message that is not yet
    # recorded as an answer (still streaming) is held rather than dropped
    return record_vote(deps, surface=SURFACE, conversation=channel, message_id=ts,
                       user=str(user), vote=vote, present=present, at=event_time(event, body),
                       bot_user=bot_user_id,
                       by_bot=bool(bot_user_id) and event.get("item_user") == bot_user_id)


def register(app: App, deps: VoteDeps) -> None:
    """Wire the reaction events on ``app``."""

    def added(body: dict[str, Any], event: dict[str, Any], context: dict[str, Any]) -> None:
        on_reaction(deps, event, present=True, body=body,
                    bot_user_id=context.get("bot_user_id"))

    def removed(body: dict[str, Any], event: dict[str, Any], context: dict[str, Any]) -> None:
        on_reaction(deps, event, present=False, body=body,
                    bot_user_id=context.get("bot_user_id"))

    app.event("reaction_added")(added)
    app.event("reaction_removed")(removed)
