"""Clarify buttons: a click answers the pending clarification of its thread, exactly like
a free-text reply (``Agent.resume``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import structlog
from slack_bolt import Ack, App

from bot.conversations.turns import TurnRunner, accept
from bot.slack import blocks, translate
from store.tokenize import language_of

if TYPE_CHECKING:
    from bot.slack.deps import SlackDeps

log = structlog.get_logger("ragbot.slack.clarify")

ACTION_PATTERN = re.compile(rf"^{blocks.CLARIFY_ACTION_PREFIX}\d$")


def register(app: App, deps: SlackDeps) -> None:
    runner = TurnRunner(deps)

    def on_option(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        container = body.get("container") or {}
        message = body.get("message") or {}
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id"))
        message_ts = str(container.get("message_ts") or message.get("ts"))
        thread_ts = str(container.get("thread_ts") or message.get("thread_ts") or message_ts)
        option = str(action.get("value") or "")
        q = translate.Incoming(
            team=str((body.get("team") or {}).get("id") or ""), channel=channel,
            user=str((body.get("user") or {}).get("id") or ""), text=option,
            # one resume per clarify message: a second click (or a click on another
            # replica) finds the turn claimed
            message_ts=f"{message_ts}:clarify", thread_ts=thread_ts, truncated=False,
            channel_type=None, mentioned=False, is_reply=True)
        turn = accept(deps, q.inbound(), kind="resume")
        ack()
        if turn is None:
            log.info("clarify_duplicate_click", channel=channel, ts=message_ts)
            return
        chosen = blocks.clarify_chosen(message.get("blocks") or [], option,
                                       lang=language_of(option))
        try:
            deps.client.chat_update(channel=channel, ts=message_ts, text=chosen.text,
                                    blocks=chosen.blocks, parse="none")
        except Exception:  # the buttons stay; the resume still runs
            log.exception("clarify_message_update_failed")
        runner.start(turn)

    app.action(ACTION_PATTERN)(on_option)
