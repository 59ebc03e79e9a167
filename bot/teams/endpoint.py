"""``POST /api/messages``: Teams activities in, a 200 within a second, the work after.

Each request: validate the Bot Framework token (401 and nothing processed otherwise), then
by activity type:
- ``message``: decide whether it is a question, claim its activity id and journal the turn
  in one statement (a redelivery, also after a restart, claims nothing), queue the turn;
- ``invoke`` ``adaptiveCard/action``: a clarify choice, claimed once per card (a double
  click runs nothing twice); the answer replaces the card;
- ``invoke`` ``message/submitAction``: the feedback buttons' like/dislike and comment;
- ``messageReaction``: 👍 on an answer is a vote, removing it withdraws the vote.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import structlog

from bot.teams import inbound, render
from bot.teams import messages as m
from bot.teams.auth import TeamsAuthError
from bot.teams.turns import lang_of
from store import teams_state
from store.teams_state import TurnDraft

if TYPE_CHECKING:
    from bot.teams.deps import TeamsDeps
    from bot.teams.turns import TeamsTurnRunner

log = structlog.get_logger("ragbot.teams.endpoint")

Reply = tuple[int, dict[str, Any] | None]
OK: Reply = (200, None)
_COMMAND = re.compile(r"^(help|status|reindex)(?:\s+(\S+))?\s*$", re.IGNORECASE)


class TeamsEndpoint:
    """The activity handler behind ``/api/messages`` (sync: run it on the thread pool)."""

    def __init__(self, deps: TeamsDeps, runner: TeamsTurnRunner) -> None:
        self.deps = deps
        self.runner = runner

    def receive(self, authorization: str | None, activity: dict[str, Any]) -> Reply:
        try:
            self.deps.auth.validate(authorization, activity.get("serviceUrl"))
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
            if decision == "maybe_follow_up" and \
                    not teams_state.is_answered_thread(conn, q.base_key):
                return OK
            command = _COMMAND.match(q.text)
            if q.starts_new_thread or command:
                if teams_state.claim_activity(conn, q.activity_id):
                    if q.starts_new_thread:
                        teams_state.chat_thread(conn, q.base_key, start_new=True,
                                                gap_min=self.deps.settings.teams_thread_gap_min)
                    self.deps.work.submit(self._say, q, self._command_reply(q, command))
                return OK
            thread_key = q.base_key if q.has_reply_chains else teams_state.chat_thread(
                conn, q.base_key, start_new=False,
                gap_min=self.deps.settings.teams_thread_gap_min)
            turn = teams_state.claim_turn(conn, TurnDraft(
                activity_id=q.activity_id, kind="ask", tenant=q.tenant,
                conversation_id=q.conversation_id, service_url=q.service_url,
                thread_key=thread_key, chat_type=q.chat_type, user_id=q.user,
                principals=q.principals, asker_principals=q.asker_principals, text=q.text,
                truncated=q.truncated, kb=self._kb(q),
                register_thread=q.has_reply_chains), self.deps.instance_id)
        if turn is None:
            log.info("teams_duplicate_activity", activity_id=q.activity_id)
            return OK
        self.deps.metrics.questions.labels("teams").inc()
        self.deps.work.submit(self.runner.run, turn)
        return OK

    def _kb(self, q: inbound.TeamsQuestion) -> str:
        """The KB set that answers here: a 1:1 chat is a DM (``RAGBOT_DM_KBS``)."""
        from store.kbset import binding_for

        return binding_for(q.conversation_id, is_dm=q.chat_type == "personal", channel_kbs={},
                           default=self.deps.default_kb, dm=self.deps.settings.dm_kbs)

    def _command_reply(self, q: inbound.TeamsQuestion, command: re.Match[str] | None) -> str:
        lang = lang_of(q.text)
        if command is None:
            return m.pick(m.NEW_THREAD, lang)
        name = command.group(1).lower()
        if name == "reindex" and q.user not in self.deps.admins:
            return m.pick(m.NOT_ADMIN, lang)
        if name == "reindex":
            return m.pick(m.REINDEX_ELSEWHERE, lang, kb=command.group(2) or self.deps.default_kb)
        if name == "status":
            return self._status_text(lang)
        return m.pick(m.HELP, lang, gap=f"{self.deps.settings.teams_thread_gap_min:g}")

    def _status_text(self, lang: str) -> str:
        from bot.conversations.texts import status_text
        from store.kb import kb_status, list_kbs

        with self.deps.pool.connection() as conn:
            kbs = [kb_status(conn, k.name) for k in list_kbs(conn)]
        return status_text(kbs, [], lang=lang)

    def _say(self, q: inbound.TeamsQuestion, text: str) -> None:
        try:
            self.deps.connector.create(q.service_url, q.conversation_id,
                                       {**render.text_message(text), "replyToId": q.activity_id})
        except Exception:
            log.exception("teams_reply_failed")

    # ------------------------------------------------------------------ clarify

    def _card_action(self, activity: dict[str, Any]) -> Reply:
        action = (activity.get("value") or {}).get("action") or {}
        data = action.get("data") or {}
        card_id = str(activity.get("replyToId") or "")
        choice, thread_key = str(data.get("choice") or ""), str(data.get("thread") or "")
        q = inbound.question({**activity, "type": "message", "text": choice},
                             home_tenant=self.deps.settings.teams_tenant_id)
        # the card's data is echoed by the client: it must name a thread of this chat
        if action.get("verb") != render.CLARIFY_VERB or not card_id or not choice or \
                not thread_key.startswith(q.base_key):
            return 200, _invoke_error("unknown action")
        chosen = render.chosen_card(m.pick(m.CLARIFY_CHOSEN, lang_of(choice), option=choice),
                                    "")
        with self.deps.pool.connection() as conn:
            turn = teams_state.claim_turn(conn, TurnDraft(
                activity_id=f"{card_id}:clarify", kind="resume", tenant=q.tenant,
                conversation_id=q.conversation_id, service_url=q.service_url,
                thread_key=thread_key, chat_type=q.chat_type, user_id=q.user,
                principals=q.principals, asker_principals=q.asker_principals, text=choice,
                kb=self._kb(q)), self.deps.instance_id)
        if turn is not None:
            self.deps.work.submit(self.runner.run, turn)
        return 200, render.card_invoke_response(chosen)

    # ------------------------------------------------------------------ feedback

    def _feedback(self, activity: dict[str, Any]) -> Reply:
        value = (activity.get("value") or {})
        if value.get("actionName") != "feedback":
            return 200, {}
        action = value.get("actionValue") or {}
        vote = {"like": 1, "dislike": -1}.get(str(action.get("reaction")))
        comment = _comment(action.get("feedback"))
        if vote is not None:
            self._vote(activity, vote, comment=comment)
        return 200, {}

    def _reaction(self, activity: dict[str, Any]) -> Reply:
        added = {r.get("type") for r in activity.get("reactionsAdded") or []}
        removed = {r.get("type") for r in activity.get("reactionsRemoved") or []}
        if "like" in added:
            self._vote(activity, 1)
        elif "like" in removed:
            self._vote(activity, None)
        return OK

    def _vote(self, activity: dict[str, Any], vote: int | None, *, comment: str = "") -> None:
        from store.feedback import record_vote, withdraw_vote
        from store.traces import get_trace

        message_id = str(activity.get("replyToId") or "")
        sender = activity.get("from") or {}
        user = str(sender.get("aadObjectId") or sender.get("id") or "")
        conversation = str((activity.get("conversation") or {}).get("id") or "")
        with self.deps.pool.connection() as conn:
            answer = teams_state.bot_message(conn, message_id)
            if answer is None or not user:
                return
            if vote is None:
                withdraw_vote(conn, channel=conversation, message_ts=message_id, user=user,
                              vote=1)
                return
            trace = _as_dict(get_trace(conn, answer.trace_id))
            trace.setdefault("thread_id", answer.thread_key)
            if comment:
                trace["feedback_comment"] = comment
            record_vote(conn, channel=conversation, message_ts=message_id, user=user,
                        vote=1 if vote > 0 else -1, trace_id=answer.trace_id, trace=trace,
                        kb=answer.kb)
        log.info("teams_vote", vote=vote, trace_id=answer.trace_id)


def _comment(raw: object) -> str:
    """The comment of Teams' feedback form (a JSON string holding ``feedbackText``)."""
    if not isinstance(raw, str) or not raw:
        return ""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw[:2000]
    return str(data.get("feedbackText") or "")[:2000] if isinstance(data, dict) else ""


def _as_dict(trace: Any) -> dict[str, Any]:
    if isinstance(trace, dict):
        return dict(trace)
    if hasattr(trace, "to_json"):
        return dict(trace.to_json())
    return {}


def _invoke_error(message: str) -> dict[str, Any]:
    return {"statusCode": 400, "type": "application/vnd.microsoft.error",
            "value": {"code": "BadRequest", "message": message}}
