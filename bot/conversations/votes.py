"""Feedback votes on the bot's answers, for every surface: a user's 👍 or 👎 on one of the
bot's messages is stored with the turn's whole trace; withdrawing it removes the vote; each
user has one vote per answer, and each (user, vote) follows its latest event by the
surface's own clock, so a redelivered or reordered older event changes nothing
(``store.feedback.apply_reaction``).

A surface translates its event (a Slack reaction, a Teams feedback action) into
``record_vote``; votes on anything that is not one of the bot's answers are ignored. A vote
on a message the surface says is the bot's own but that is not recorded as an answer yet
(still streaming, or just posted) is held and becomes a vote when the turn records the
message (``settle_held_votes``), so a quick 👍 is not lost.
"""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from store.conversations import trace_for_message
from store.feedback import (
    DOWN,
    UP,
    ReactionOutcome,
    Vote,
    apply_reaction,
    held_votes,
    hold_reaction,
    lock_message,
)
from store.feedback import record_vote as store_vote
from store.kbset import kb_set_key
from store.traces import get_trace, recent_traces

if TYPE_CHECKING:
    from collections.abc import Sequence
    from decimal import Decimal

    from psycopg import Connection
    from psycopg_pool import ConnectionPool

    from bot.http.metrics import Metrics

log = structlog.get_logger("ragbot.conversations.votes")

__all__ = ["DOWN", "UP", "VoteDeps", "record_vote", "settle_held_votes", "vote_label"]

_VOTE_LABELS: dict[Vote | None, str] = {UP: "up", DOWN: "down"}  # /metrics


class VoteDeps(Protocol):
    pool: ConnectionPool
    metrics: Metrics


def vote_label(vote: Vote | None) -> str:
    """A vote's label on ``/metrics`` ("withdrawn" for none)."""
    return _VOTE_LABELS.get(vote, "withdrawn")


def record_vote(deps: VoteDeps, *, surface: str, conversation: str, message_id: str,
                user: str, vote: Vote, present: bool, at: Decimal,
                bot_user: str | None = None, comment: str = "",
                by_bot: bool = False) -> ReactionOutcome | None:
    """Apply ``user``'s ``vote`` on the bot's message ``message_id``: added (``present``)
    or withdrawn, at the surface's event time ``at`` (``comment``: the voter's words, when
    the surface has a feedback form). ``by_bot``: the surface knows the message is the
    bot's own, so a vote arriving before it is recorded as an answer is held until it is.
    None when the message is not (or not yet) one of the bot's answers, or the voter is
    the bot itself."""
    if not user or user == bot_user:
        return None
    with deps.pool.connection() as conn, conn.transaction():
        lock_message(conn, conversation, message_id)
        found = _answer_trace(conn, surface, conversation, message_id)
        if found is None:
            if by_bot and message_id:
                held = hold_reaction(conn, channel=conversation, message_ts=message_id,
                                     user=user, vote=vote, present=present, event_ts=at)
                log.info("feedback_vote_held", surface=surface, reaction=vote,
                         present=present, applied=held.applied, user=user,
                         conversation=conversation, message_id=message_id)
            return None
        trace_id, trace, kb = found
        if comment:
            trace["feedback_comment"] = comment
        outcome = apply_reaction(conn, channel=conversation, message_ts=message_id, user=user,
                                 vote=vote, present=present, event_ts=at, trace_id=trace_id,
                                 trace=trace, kb=kb or trace.get("kb"))
    if outcome.applied:
        deps.metrics.votes.labels(surface, vote_label(outcome.vote)).inc()
        log.info("feedback_vote", surface=surface, trace_id=trace_id, reaction=vote,
                 present=present, vote=outcome.vote, user=user, conversation=conversation)
    else:  # a redelivery or an out-of-order event older than the recorded one
        log.info("feedback_reaction_stale", surface=surface, trace_id=trace_id,
                 reaction=vote, present=present, event_ts=str(at), user=user,
                 conversation=conversation)
    return outcome


def settle_held_votes(conn: Connection, *, surface: str, conversation: str,
                      message_ids: Sequence[str]) -> dict[str, dict[str, Vote]]:
    """Turn the votes held on ``message_ids`` (reactions that came before the messages were
    recorded as answers) into votes; call inside the transaction that records them, after
    recording. Returns the votes made, by message id."""
    settled: dict[str, dict[str, Vote]] = {}
    for message_id in message_ids:
        lock_message(conn, conversation, message_id)
        held = held_votes(conn, conversation, message_id)
        found = _answer_trace(conn, surface, conversation, message_id) if held else None
        if found is None:
            continue
        trace_id, trace, kb = found
        for user, vote in held.items():
            store_vote(conn, channel=conversation, message_ts=message_id, user=user,
                       vote=vote, trace_id=trace_id, trace=trace, kb=kb or trace.get("kb"))
            log.info("feedback_vote", surface=surface, trace_id=trace_id, reaction=vote,
                     present=True, vote=vote, user=user, conversation=conversation,
                     held=True)
        settled[message_id] = held
    return settled


def _answer_trace(conn: Connection, surface: str, conversation: str,
                  message_id: str) -> tuple[str, dict[str, Any], str | None] | None:
    """The trace id, trace and KB of the bot's answer ``message_id``, if it is one."""
    message = trace_for_message(conn, surface, conversation, message_id)
    if message is None:
        return None
    trace = _as_dict(get_trace(conn, message.trace_id))
    # the thread key and KB are known here even if the trace lacks them
    trace.setdefault("thread_id", message.thread_key)
    trace.setdefault("turn", _turn_number(conn, str(trace["thread_id"]), message.trace_id))
    # The trace names the KB the agent resolved ("*" over one KB is that KB); a set of
    # several keeps its key ("hr+it").
    kb = trace.get("kb") or (kb_set_key(message.kbs) if message.kbs else None)
    return message.trace_id, trace, kb


def _turn_number(conn: Connection, thread_id: str, trace_id: str) -> int:
    """The answer's position among its thread's turns (1 = the first question)."""
    ids = [t["trace_id"] for t in reversed(recent_traces(conn, thread_id, limit=500))]
    return ids.index(trace_id) + 1 if trace_id in ids else 1


def _as_dict(trace: Any) -> dict[str, Any]:
    if trace is None:
        return {}
    if isinstance(trace, dict):
        return trace
    if hasattr(trace, "to_json"):
        return dict(trace.to_json())
    if is_dataclass(trace) and not isinstance(trace, type):
        return asdict(trace)
    return {"value": str(trace)}
