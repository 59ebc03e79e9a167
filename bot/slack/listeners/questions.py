"""Questions: an @mention in a channel, any DM, and human replies in a thread the bot
answered. Each is journaled before Slack gets its ack (listener middleware runs in the
request thread), then answered after it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog
from slack_bolt import App, BoltContext, BoltResponse

from bot.conversations.turns import TurnRunner, accept
from bot.slack import translate
from store import conversations as journal

if TYPE_CHECKING:
    from bot.slack.deps import SlackDeps

log = structlog.get_logger("ragbot.slack.questions")

_TURN = "ragbot_turn"


def _addressed(deps: SlackDeps, event: dict[str, Any], q: translate.Incoming,
               bot_user_id: str | None) -> bool:
    """Is this message for the bot? (app_mention always is.)"""
    if event.get("type") == "app_mention":
        return True
    if q.channel_type == "im":
        return True
    if not q.is_reply:
        return False  # a top-level channel message: only its app_mention counts
    if translate.mentions_other_user(str(event.get("text") or ""), bot_user_id):
        return False  # people talking to each other in the bot's thread
    with deps.pool.connection() as conn:
        return journal.is_answered_thread(conn, translate.SURFACE, q.channel, q.thread_ts)


def register(app: App, deps: SlackDeps) -> None:
    runner = TurnRunner(deps)

    def claim(body: dict[str, Any], event: dict[str, Any], context: BoltContext,
              next: Callable[[], None]) -> BoltResponse | None:
        reason = translate.ignore_reason(event, context.bot_user_id, context.bot_id)
        if reason is not None:
            log.debug("event_ignored", reason=reason, type=event.get("type"))
            return BoltResponse(status=200, body="")
        q = translate.incoming(event, team=str(body.get("team_id") or ""),
                               bot_user_id=context.bot_user_id)
        if not _addressed(deps, event, q, context.bot_user_id):
            return BoltResponse(status=200, body="")
        event_id = body.get("event_id")
        turn = accept(deps, q.inbound(str(event_id) if event_id else None),
                      kind="ask" if q.text else "help")
        if turn is None:  # the same message through another event, or a replica got it
            log.info("message_duplicate", channel=q.channel, ts=q.message_ts,
                     event_id=body.get("event_id"))
            return BoltResponse(status=200, body="")
        context[_TURN] = turn
        next()
        return None

    def answer(context: BoltContext) -> None:
        runner.start(context[_TURN])

    app.event("app_mention", middleware=[claim])(answer)
    app.event("message", middleware=[claim])(answer)
