"""Slack events to channel-neutral questions, and access per conversation type."""

from __future__ import annotations

import pytest

from bot.slack import translate


def test_plain_text_removes_bot_mention_and_decodes_markup() -> None:
    text = "<@UBOT> ask <@U2> in <#C1|ops> about <https://x.io|docs> &amp; <!here> &lt;tag&gt;"
    assert translate.plain_text(text, "UBOT") == (
        "ask @U2 in #ops about docs (https://x.io) & @here <tag>")


@pytest.mark.parametrize(("event", "reason"), [
    ({"subtype": "message_changed", "user": "U1"}, "subtype:message_changed"),
    ({"subtype": "message_deleted"}, "subtype:message_deleted"),
    ({"subtype": "bot_message", "bot_id": "B2"}, "subtype:bot_message"),
    ({"user": "U1", "hidden": True}, "hidden"),
    ({"user": "U9", "bot_id": "B9"}, "bot"),
    ({"user": "UBOT", "bot_id": "BBOT"}, "own_message"),
    ({"user": "UBOT"}, "own_message"),
    ({"text": "no user"}, "no_user"),
])
def test_events_that_are_not_questions_are_ignored(event: dict[str, object], reason: str) -> None:
    assert translate.ignore_reason(event, "UBOT", "BBOT") == reason


@pytest.mark.parametrize("subtype", [None, "file_share", "thread_broadcast"])
def test_human_messages_are_questions(subtype: str | None) -> None:
    assert translate.ignore_reason({"user": "U1", "subtype": subtype}, "UBOT") is None


def test_incoming_uses_thread_of_the_message_and_cuts_long_text() -> None:
    event = {"type": "app_mention", "user": "U1", "channel": "C1", "ts": "2.0",
             "thread_ts": "1.0", "text": "<@UBOT> " + "x" * 5000}
    q = translate.incoming(event, team="T1", bot_user_id="UBOT")
    assert q.thread_key == "slack:T1:C1:1.0"
    assert q.is_reply
    assert q.mentioned
    assert q.truncated
    assert len(q.text) == translate.MAX_QUESTION_CHARS


def test_top_level_message_starts_its_own_thread() -> None:
    q = translate.incoming({"user": "U1", "channel": "D1", "ts": "5.0", "text": "hi",
                            "channel_type": "im"}, team="T1", bot_user_id="UBOT")
    assert q.thread_ts == "5.0"
    assert not q.is_reply
    assert not q.mentioned


def test_mentions_of_other_people_are_detected() -> None:
    assert translate.mentions_other_user("<@U2> what do you think", "UBOT")
    assert not translate.mentions_other_user("<@UBOT> what", "UBOT")


@pytest.mark.parametrize(("info", "kind"), [
    ({"is_channel": True}, "public"),
    ({"is_private": True, "is_group": True}, "private"),
    ({"is_im": True, "is_private": True}, "direct"),
    ({"is_mpim": True, "is_private": True}, "group"),
    ({"is_private": True, "is_ext_shared": True}, "external-shared"),
    ({"is_im": True, "is_ext_shared": True}, "external-shared"),
])
def test_conversation_kind_checks_external_sharing_first(info: dict[str, bool],
                                                         kind: str) -> None:
    assert translate.kind_from_info(info) == kind
