"""``POST /api/messages``: Teams activities in, a 200 within a second, the work after.

Each request: validate the Bot Framework token (401 and nothing processed otherwise), then
translate the activity for the conversation core:
- ``message``: a question is journaled by the core's ``accept`` (its activity id claimed
  in the same statement: a redelivery, also after a restart, claims nothing); the status
  message and the turn start after the 200. ``help`` is the core's help turn; ``status``
  and ``reindex`` are the core's admin commands; "new" starts a chat's next session;
- ``invoke`` ``adaptiveCard/action``: a clarify choice resumes the card's thread as the
  core's ``resume`` turn, claimed once per card (a double click runs nothing twice); the
  HTTP answer replaces the card;
- ``invoke`` ``message/submitAction``: the feedback buttons' like/dislike and comment, and
  ``messageReaction``: 👍 on an answer, both the core's votes.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import structlog

from bot.conversations.commands import handle_command
from bot.conversations.executor import ContextThreadPoolExecutor
from bot.conversations.model import Inbound
from bot.conversations.turns import accept, place_of
from bot.conversations.votes import DOWN, UP, record_vote
from bot.teams import inbound, render
from bot.teams import messages as m
from bot.teams.auth import TeamsAuthError
from store import conversations as journal
from store.tokenize import language_of

if TYPE_CHECKING:
    from bot.conversations.deps import ConversationDeps
    from bot.conversations.model import Place
    from bot.conversations.turns import TurnRunner
    from bot.teams.auth import InboundAuth
    from bot.teams.surface import TeamsSurface
    from store.conversations import Turn

log = structlog.get_logger("ragbot.teams.endpoint")
# How long a clarify click waits for its card's message id to be recorded (see _card_turn):
# well inside the few seconds Teams allows an invoke.
CARD_RECORD_WAIT_S = 2.0

Reply = tuple[int, dict[str, Any] | None]
OK: Reply = (200, None)
_COMMAND = re.compile(r"^(help|status|reindex)\b", re.IGNORECASE)


class TeamsEndpoint:
    """The activity handler behind ``/api/messages`` (sync: run it on the thread pool)."""

    def __init__(self, deps: ConversationDeps, auth: InboundAuth, runner: TurnRunner, *,
                 after_workers: int = 4) -> None:
        self.deps = deps
        self.auth = auth
        self.runner = runner
        self.surface: TeamsSurface = deps.surface_for("teams")  # type: ignore[assignment]
        # what follows the 200: status messages, command replies
        self._after = ContextThreadPoolExecutor(max_workers=after_workers,
                                                thread_name_prefix="ragbot-teams-after")

    def close(self) -> None:
        self._after.shutdown(wait=True)

    def receive(self, authorization: str | None, activity: dict[str, Any]) -> Reply:
        try:
            self.auth.validate(authorization, activity.get("serviceUrl"))
        except TeamsAuthError as exc:
            log.warning("teams_request_refused", reason=str(exc))
            return 401, None
        kind = activity.get("type")
        with structlog.contextvars.bound_contextvars(activity_type=kind):
            if kind == "message":
                return self._message(activity)
            if kind == "invoke" and activity.get("name") == "adaptiveCard/action":
                return self._card_action(activity)
            if kind == "invoke" and activity.get("name") == "message/submitAction":
                return self._feedback(activity)
            if kind == "messageReaction":
                return self._reaction(activity)
        return OK

    # ------------------------------------------------------------------ questions

    def _message(self, activity: dict[str, Any]) -> Reply:
        reason = inbound.ignore_reason(activity)
        if reason is not None:
            log.debug("teams_message_ignored", reason=reason)
            return OK
        q = inbound.question(activity, home_tenant=self.deps.settings.teams_tenant_id)
        decision = inbound.route(q)
        if decision == "ignore" or not q.text:
            return OK
        with self.deps.pool.connection() as conn:
            if decision == "maybe_follow_up" and not journal.is_answered_thread(
                    conn, inbound.SURFACE, q.conversation, q.root):
                return OK
        return self._question(q)

    def _question(self, q: inbound.TeamsQuestion) -> Reply:
        command = _COMMAND.match(q.text)
        with self.deps.pool.connection() as conn:
            if q.has_reply_chains:
                thread = q.root
            else:
                thread, _ = journal.chat_session(
                    conn, inbound.SURFACE, q.conversation,
                    gap_min=self.deps.settings.teams_thread_gap_min,
                    start_new=q.starts_new_thread)
            if q.starts_new_thread or (command and command.group(1).lower() != "help"):
                # not a turn: claimed as a delivery so a redelivery does nothing twice
                if not journal.record_delivery(conn, inbound.SURFACE, q.activity_id):
                    return OK
                if q.starts_new_thread:
                    place = q.place(thread)
                    journal.open_chat_session(
                        conn, surface=inbound.SURFACE, workspace=q.tenant,
                        conversation=q.conversation, thread=thread,
                        thread_key=place.thread_key,
                        kbs=self.deps.kbs.for_conversation(q.conversation,
                                                           direct=q.kind == "direct"))
        if q.starts_new_thread:
            self._after.submit(self._say, q.place(thread), m.NEW_THREAD[language_of(q.text)])
            return OK
        if command and command.group(1).lower() != "help":
            self._after.submit(self._command, q.place(thread), q.user, q.text)
            return OK
        turn = accept(self.deps, q.inbound(thread), kind="help" if command else "ask")
        if turn is None:
            log.info("teams_duplicate_activity", activity_id=q.activity_id)
            return OK
        self._after.submit(self.runner.start, turn)
        return OK

    def _command(self, place: Place, user: str, text: str) -> None:
        handle_command(self.deps, self.surface, place, user=user, text=text,
                       ack=lambda reply: self._say(place, reply) if reply else None)

    def _say(self, place: Place, text: str) -> None:
        try:
            self.surface.post(place, self.surface.notice_message(text))
        except Exception:
            log.exception("teams_reply_failed")

    # ------------------------------------------------------------------ clarify

    def _card_action(self, activity: dict[str, Any]) -> Reply:
        action = (activity.get("value") or {}).get("action") or {}
        choice = str((action.get("data") or {}).get("choice") or "")
        card_id = str(activity.get("replyToId") or "")
        if action.get("verb") != render.CLARIFY_VERB or not card_id or not choice or \
                inbound.ignore_reason({**activity, "type": "message"}) is not None:
            return 200, _invoke_error("unknown action")
        q = inbound.question({**activity, "type": "message", "text": choice},
                             home_tenant=self.deps.settings.teams_tenant_id)
        asked = self._card_turn(q.conversation, card_id)
        if asked is None:  # not one of the bot's cards: the client's data is not trusted
            return 200, _invoke_error("unknown card")
        place = place_of(asked)
        place = replace(place, address={**place.address, "asker": q.user,
                                        "replyTo": q.activity_id or card_id})
        turn = accept(self.deps, Inbound(place=place, message_id=f"{card_id}:clarify",
                                         asker=q.user, text=choice),
                      kind="resume")
        if turn is not None:
            self._after.submit(self.runner.start, turn)
        chosen = render.chosen_card(m.CLARIFY_CHOSEN[language_of(choice)].format(option=choice),
                                    "")
        return 200, render.card_invoke_response(chosen)

    def _card_turn(self, conversation: str, card_id: str) -> Turn | None:
        """The turn that posted card ``card_id``. The card's message id is recorded just
        after the connector returns it, so a click landing in that window waits for the
        record (up to :data:`CARD_RECORD_WAIT_S`) instead of being refused."""
        deadline = time.monotonic() + CARD_RECORD_WAIT_S
        while True:
            with self.deps.pool.connection() as conn:
                card = journal.trace_for_message(conn, inbound.SURFACE, conversation, card_id)
                if card is not None and card.turn_id is not None:
                    return journal.get_turn(conn, card.turn_id)
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.1)

    # ------------------------------------------------------------------ feedback

    def _feedback(self, activity: dict[str, Any]) -> Reply:
        value = activity.get("value") or {}
        if value.get("actionName") != "feedback":
            return 200, {}
        action = value.get("actionValue") or {}
        vote = {"like": UP, "dislike": DOWN}.get(str(action.get("reaction")))
        if vote is not None:
            self._vote(activity, vote, present=True, comment=_comment(action.get("feedback")))
        return 200, {}

    def _reaction(self, activity: dict[str, Any]) -> Reply:
        added = {r.get("type") for r in activity.get("reactionsAdded") or []}
        removed = {r.get("type") for r in activity.get("reactionsRemoved") or []}
        if "like" in added:
            self._vote(activity, UP, present=True)
        elif "like" in removed:
            self._vote(activity, UP, present=False)
        return OK

    def _vote(self, activity: dict[str, Any], vote: Any, *, present: bool,
              comment: str = "") -> None:
        sender = activity.get("from") or {}
        conversation = str((activity.get("conversation") or {}).get("id") or "")
        record_vote(self.deps, surface=inbound.SURFACE,
                    conversation=conversation.partition(";messageid=")[0],
                    message_id=str(activity.get("replyToId") or ""),
                    user=str(sender.get("aadObjectId") or sender.get("id") or ""),
                    vote=vote, present=present, at=Decimal(repr(time.time())),
                    comment=comment, by_bot=True)  # Teams sends these for its own messages


def _comment(raw: object) -> str:
    """The comment of Teams' feedback form (a JSON string holding ``feedbackText``)."""
    if not isinstance(raw, str) or not raw:
        return ""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw[:2000]
    return str(data.get("feedbackText") or "")[:2000] if isinstance(data, dict) else ""


def _invoke_error(message: str) -> dict[str, Any]:
    return {"statusCode": 400, "type": "application/vnd.microsoft.error",
            "value": {"code": "BadRequest", "message": message}}

