"""Slack's implementation of the core's ``Surface`` port: Block Kit rendering
(``blocks``) and the Web API calls that post it.

Document-derived text is escaped by ``blocks``; messages are posted with unfurling and
name linking off, and updated with ``parse="none"``, so Slack adds no previews and links no
names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import structlog
from slack_sdk.errors import SlackApiError

from bot.conversations.surface import SurfaceError
from bot.slack import blocks
from bot.slack.access import no_groups

if TYPE_CHECKING:
    from slack_sdk import WebClient

    from agent.types import AnswerResult, Clarification
    from bot.conversations.model import ConversationKind, Place
    from bot.slack.access import ChannelDirectory

log = structlog.get_logger("ragbot.slack.surface")

SURFACE = "slack"


class SlackSurface:
    """Posts through ``client``; conversation kinds from ``directory``
    (``conversations.info``), group memberships from ``groups``."""

    name = SURFACE

    def __init__(self, client: WebClient, directory: ChannelDirectory, *,
                 admins: Sequence[str] = (), link_hosts: Sequence[str] = (),
                 groups: Callable[[str], tuple[str, ...]] = no_groups) -> None:
        self.client = client
        self.directory = directory
        self.admins = frozenset(admins)
        self.link_hosts = tuple(link_hosts)
        self._groups = groups

    # ------------------------------------------------------------ rendering

    def status_message(self, line: str) -> blocks.Message:
        return blocks.status_message(line)

    def answer_messages(self, result: AnswerResult, *, lang: str,
                        notes: Sequence[str] = ()) -> list[blocks.Message]:
        return blocks.answer_messages(result.text, result.citations, lang=lang, notes=notes,
                                      link_hosts=self.link_hosts)

    def clarify_messages(self, clarification: Clarification, *,
                         lang: str) -> list[blocks.Message]:
        return [blocks.clarify_message(clarification.question, clarification.options,
                                       lang=lang)]

    def notice_message(self, text: str) -> blocks.Message:
        return blocks.notice_message(text)

    # ------------------------------------------------------------ delivery

    def post(self, place: Place, message: blocks.Message) -> str:
        resp = self.client.chat_postMessage(
            channel=place.conversation, thread_ts=place.thread, text=message.text,
            blocks=message.blocks, unfurl_links=False, unfurl_media=False, link_names=False)
        return str(resp["ts"])

    def update(self, place: Place, message_id: str, message: blocks.Message) -> None:
        try:
            self.client.chat_update(channel=place.conversation, ts=message_id,
                                    text=message.text, blocks=message.blocks, parse="none")
        except SlackApiError as exc:
            raise SurfaceError(str(exc.response.get("error") or "slack_error")) from exc

    def open_answer_stream(self, place: Place, user: str, status_id: str | None,
                           text: str) -> str | None:
        """A streaming message (``chat.startStream``) in the thread; Slack streams only
        into threads, and outside a DM it needs the asker and the team."""
        if not place.thread:
            return None
        try:
            resp = self.client.chat_startStream(
                channel=place.conversation, thread_ts=place.thread,
                markdown_text=blocks.escape(text), recipient_user_id=user or None,
                recipient_team_id=place.workspace or None)
        except SlackApiError as exc:
            raise SurfaceError(str(exc.response.get("error") or "slack_error")) from exc
        return str(resp["ts"])

    def append_answer_stream(self, place: Place, stream_id: str, text: str,
                             added: str) -> None:
        try:
            self.client.chat_appendStream(channel=place.conversation, ts=stream_id,
                                          markdown_text=blocks.escape(added))
        except SlackApiError as exc:
            raise SurfaceError(str(exc.response.get("error") or "slack_error")) from exc

    def close_answer_stream(self, place: Place, stream_id: str, status_id: str | None,
                            message: blocks.Message) -> str:
        """``chat.stopStream``, then the streamed message becomes the answer message with
        its sources (the same blocks as without a stream); the status message goes."""
        try:
            self.client.chat_stopStream(channel=place.conversation, ts=stream_id)
        except SlackApiError as exc:
            raise SurfaceError(str(exc.response.get("error") or "slack_error")) from exc
        self.update(place, stream_id, message)
        if status_id is not None:
            try:
                self.client.chat_delete(channel=place.conversation, ts=status_id)
            except SlackApiError as exc:  # not ours to delete any more: point to the answer
                log.info("status_delete_failed", error=exc.response.get("error"))
                self.update(place, status_id, blocks.status_message("↓"))
        return stream_id

    def notify_user(self, place: Place, user: str, text: str) -> bool:
        """An ephemeral message that only ``user`` sees (in the thread, if any); where
        Slack refuses it (a DM the bot is not in), the slash command's response URL
        (``place.address["response_url"]``), else a DM."""
        try:
            self.client.chat_postEphemeral(channel=place.conversation, user=user, text=text,
                                           thread_ts=place.thread or None)
        except SlackApiError as exc:
            log.info("ephemeral_failed", error=exc.response.get("error"),
                     channel=place.conversation)
        except Exception as exc:  # the network: a DM would fail the same way
            log.warning("notify_user_failed", error=type(exc).__name__)
            return False
        else:
            return True
        response_url = place.address.get("response_url")
        if response_url and _via_response_url(response_url, text):
            return True
        try:
            self.client.chat_postMessage(channel=user, text=text)
        except Exception as exc:
            log.warning("notify_user_failed", error=type(exc).__name__)
            return False
        return True

    def show_busy(self, place: Place, text: str) -> None:
        """``assistant.threads.setStatus`` applies to DM threads of assistant apps; in any
        other conversation Slack refuses it, which is fine."""
        if not place.conversation.startswith("D"):
            return
        try:
            self.client.assistant_threads_setStatus(
                channel_id=place.conversation, thread_ts=place.thread, status=text)
        except Exception as exc:  # not an assistant thread, or a scope the app lacks
            log.debug("assistant_status_skipped", error=type(exc).__name__)

    # ------------------------------------------------------------ the conversation

    def conversation_kind(self, place: Place) -> ConversationKind:
        return self.directory.kind(place.conversation)

    def groups(self, user: str) -> tuple[str, ...]:
        return self._groups(user)

    def is_admin(self, user: str) -> bool:
        return bool(user) and user in self.admins


def _via_response_url(response_url: str, text: str) -> bool:
    from slack_sdk.webhook import WebhookClient

    try:
        sent = WebhookClient(response_url, timeout=10).send(text=text,
                                                            response_type="ephemeral")
    except Exception:  # expired or unreachable: the DM still gets through
        log.info("response_url_failed", exc_info=True)
        return False
    return sent.status_code == 200
