"""Global middleware: an Events API delivery whose ``event_id`` was seen before (Slack's
retries, ``X-Slack-Retry-Num``) is acknowledged and dropped, on any replica.

Messages and mentions are checked in ``store.conversations.claim_turn`` instead, together
with the (channel, ts) check."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog
from slack_bolt import App, BoltRequest, BoltResponse

from bot.slack.translate import SURFACE
from store import conversations as journal

if TYPE_CHECKING:
    from bot.slack.deps import SlackDeps

log = structlog.get_logger("ragbot.slack.dedup")

# Their event ids are recorded by the question listener's claim (one round trip before the
# ack instead of two); every other event's here.
QUESTION_EVENTS = frozenset({"app_mention", "message"})


def register(app: App, deps: SlackDeps) -> None:
    def dedup_events(req: BoltRequest, body: dict[str, Any],
                     next: Callable[[], None]) -> BoltResponse | None:
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if (body.get("event") or {}).get("type") in QUESTION_EVENTS:
            event_id = None  # recorded with the question's claim, in the same statement
        if event_id:
            with deps.pool.connection() as conn:
                first = journal.record_delivery(conn, SURFACE, str(event_id))
            if not first:
                retry = (req.headers.get("x-slack-retry-num") or [""])[0] or None
                log.info("event_duplicate", event_id=event_id, retry_num=retry)
                return BoltResponse(status=200, body="")
        next()
        return None

    app.middleware(dedup_events)
