"""👍/👎 reactions on the bot's answers become votes, stored with the turn's trace.

``reaction_added`` records (or replaces) the reacting user's vote; ``reaction_removed``
withdraws it. Reactions on any message that is not one of the bot's answers are ignored.
Each reaction follows its latest event by Slack's ``event_ts``, so a redelivered or
reordered older event changes nothing (``store.feedback.apply_reaction``).
"""

from __future__ import annotations

import time
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from store.feedback import DOWN, UP, ReactionOutcome, Vote, apply_reaction

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg_pool import ConnectionPool
    from slack_bolt import App

    from bot.http.metrics import Metrics

log = structlog.get_logger("ragbot.slack.feedback")

_VOTES: dict[str, Vote] = {"+1": UP, "thumbsup": UP, "-1": DOWN, "thumbsdown": DOWN}
_VOTE_LABELS: dict[Vote | None, str] = {UP: "up", DOWN: "down"}  # /metrics


def vote_for_reaction(name: str | None) -> Vote | None:
    """The vote a reaction means (skin tones count the same), or None for other emoji."""
    base = (name or "").split("::", 1)[0]
    return _VOTES.get(base)


class FeedbackDeps(Protocol):
    pool: ConnectionPool
    metrics: Metrics


def _answer_trace(conn: Connection, channel: str,
                  ts: str) -> tuple[str, dict[str, Any], str | None] | None:
    """The trace id, trace and KB of the answer posted at (channel, ts), if it is ours."""
    from store.slack_state import trace_for_message
    from store.traces import get_trace

    message = trace_for_message(conn, channel, ts)
    if message is None:
        return None
    trace = _as_dict(get_trace(conn, message.trace_id))
    # the thread key and KB are known here even if the trace lacks them
    trace.setdefault("thread_id", message.thread_key)
    trace.setdefault("turn", _turn_number(conn, str(trace["thread_id"]), message.trace_id))
    return message.trace_id, trace, message.kb


def _turn_number(conn: Connection, thread_id: str, trace_id: str) -> int:
    """The answer's position among its thread's turns (1 = the first question)."""
    from store.traces import recent_traces

    ids = [t["trace_id"] for t in reversed(recent_traces(conn, thread_id, limit=500))]
    return ids.index(trace_id) + 1 if trace_id in ids else 1


def _as_dict(trace: Any) -> dict[str, Any]:
    if trace is None:
        return {}
    if isinstance(trace, dict):
        return trace
    if hasattr(trace, "to_json"):
        return dict(trace.to_json())
    from dataclasses import asdict, is_dataclass

    if is_dataclass(trace) and not isinstance(trace, type):
        return asdict(trace)
    return {"value": str(trace)}


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


def on_reaction(deps: FeedbackDeps, event: dict[str, Any], *, present: bool,
                body: dict[str, Any] | None = None,
                bot_user_id: str | None = None) -> ReactionOutcome | None:
    """Apply a ``reaction_added`` (``present``) or ``reaction_removed`` to the reacting
    user's vote. None when it is not a vote on one of the bot's answers."""
    vote, target, user = vote_for_reaction(event.get("reaction")), _target(event), event.get("user")
    if vote is None or target is None or not user or user == bot_user_id:
        return None
    channel, ts = target
    at = event_time(event, body)
    with deps.pool.connection() as conn:
        found = _answer_trace(conn, channel, ts)
        if found is None:
            return None
        trace_id, trace, kb = found
        outcome = apply_reaction(conn, channel=channel, message_ts=ts, user=str(user),
                                 vote=vote, present=present, event_ts=at, trace_id=trace_id,
                                 trace=trace, kb=kb or trace.get("kb"))
    if outcome.applied:
        deps.metrics.votes.labels("slack", _VOTE_LABELS.get(outcome.vote, "withdrawn")).inc()
        log.info("feedback_vote", trace_id=trace_id, reaction=vote, present=present,
                 vote=outcome.vote, user=user, channel=channel)
    else:  # a redelivery or an out-of-order event older than the recorded one
        log.info("feedback_reaction_stale", trace_id=trace_id, reaction=vote,
                 present=present, event_ts=str(at), user=user, channel=channel)
    return outcome


def register(app: App, deps: FeedbackDeps) -> None:
    """Wire the reaction events on ``app``."""

    def added(body: dict[str, Any], event: dict[str, Any], context: dict[str, Any]) -> None:
        on_reaction(deps, event, present=True, body=body,
                    bot_user_id=context.get("bot_user_id"))

    def removed(body: dict[str, Any], event: dict[str, Any]) -> None:
        on_reaction(deps, event, present=False, body=body)

    app.event("reaction_added")(added)
    app.event("reaction_removed")(removed)
