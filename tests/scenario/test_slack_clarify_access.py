"""Clarify by button and by text; access per conversation type; document text escaped."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.scenario.conftest import (
    ADMIN,
    DM_ADMIN,
    EXTERNAL,
    PRIVATE,
    PUBLIC,
    Bot,
    block_text,
)
from tests.scenario.fake_slack import FakeSlack

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]

VAGUE = "<@UBOT> the report?"
SALARY = "2027年调薪预算是多少？"


def _shown(bot: Bot, channel: str, ts: str) -> dict[str, Any]:
    turn = bot.wait_done(channel, ts)
    msg = bot.shown(channel, turn)
    assert msg is not None
    return msg


def _buttons(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [el for b in msg["blocks"] if b["type"] == "actions" for el in b["elements"]]


def _click(bot: Bot, channel: str, msg: dict[str, Any], button: dict[str, Any],
           user: str = "U1") -> None:
    payload = {
        "type": "block_actions", "team": {"id": bot.fake.team_id}, "user": {"id": user},
        "api_app_id": "A0001", "token": "legacy", "trigger_id": "1.2.3",
        "container": {"type": "message", "message_ts": msg["ts"], "channel_id": channel,
                      "is_ephemeral": False, "thread_ts": msg["thread_ts"]},
        "channel": {"id": channel}, "message": msg,
        "actions": [{"type": "button", "action_id": button["action_id"],
                     "block_id": "ragbot_clarify", "value": button["value"],
                     "text": button["text"], "action_ts": "1700000999.000001"}],
    }
    assert bot.sender.interaction(payload).status == 200


def test_vague_question_gets_buttons_and_a_click_resumes_the_run(bot: Bot) -> None:
    ask = bot.sender.mention(PUBLIC, VAGUE)
    bot.sender.event(ask)
    clarify = _shown(bot, PUBLIC, ask["ts"])
    buttons = _buttons(clarify)
    assert 2 <= len(buttons) <= 3
    # the asker means the report: they click that option (another would be refused now
    # that an answer needs most of the question's terms in its evidence)
    (choice,) = [b for b in buttons if b["value"] == "report"]
    _click(bot, PUBLIC, clarify, choice)
    _click(bot, PUBLIC, clarify, choice)  # a double click resumes once
    answer = _shown(bot, PUBLIC, f"{clarify['ts']}:clarify")
    # the interrupted run went on: "the report" + the choice found the one report
    assert "2026 Q3 Returns Report" in block_text(answer)
    assert bot.agent.pending_clarification(f"slack:T0001:{PUBLIC}:{ask['ts']}") is None
    after = bot.fake.message(PUBLIC, clarify["ts"]) or {}
    assert not _buttons(after)  # the buttons are gone, the choice is shown
    assert choice["value"] in block_text(after)
    assert len([c for c in bot.fake.ok_calls("chat.postMessage")]) == 2


def test_vague_question_resumed_by_a_free_text_reply(bot: Bot) -> None:
    ask = bot.sender.mention(PUBLIC, VAGUE)
    bot.sender.event(ask)
    assert _buttons(_shown(bot, PUBLIC, ask["ts"]))
    reply = bot.sender.message(PUBLIC, "returns", thread_ts=ask["ts"])
    bot.sender.event(reply)
    assert "2026 Q3 Returns Report" in block_text(_shown(bot, PUBLIC, reply["ts"]))
    assert bot.agent.pending_clarification(f"slack:T0001:{PUBLIC}:{ask['ts']}") is None


def _ask(bot: Bot, channel: str, text: str, user: str = "U1", **kw: Any) -> str:
    event = (bot.sender.message(channel, text, user=user, channel_type="im")
             if channel.startswith("D") else bot.sender.mention(channel, f"<@UBOT> {text}",
                                                                 user=user))
    bot.sender.event(event)
    return block_text(_shown(bot, channel, event["ts"]))


def _notes(fake: FakeSlack) -> list[dict[str, Any]]:
    return [c.body for c in fake.ok_calls("chat.postEphemeral")]


def _plain(shown: str) -> bool:
    return "6.5" not in shown and "restricted" not in shown.lower() and "权限" not in shown


def test_a_reader_asking_in_public_is_told_alone_to_ask_in_a_dm(bot: Bot) -> None:
    event = bot.sender.mention(PUBLIC, f"<@UBOT> {SALARY}", user=ADMIN)
    bot.sender.event(event)
    shown = block_text(_shown(bot, PUBLIC, event["ts"]))
    assert _plain(shown)  # the channel sees the plain refusal
    (note,) = bot.fake.wait_for(_notes, timeout=10)
    assert (note["channel"], note["user"], note["thread_ts"]) == (PUBLIC, ADMIN, event["ts"])
    assert "私聊" in note["text"]
    assert "6.5" not in note["text"]


def test_others_get_the_plain_refusal_so_restricted_subjects_cannot_be_probed(
        bot: Bot) -> None:
    from agent.messages import REFUSAL

    restricted = _ask(bot, PUBLIC, SALARY)  # U1 may not read the salary document anywhere
    assert restricted == REFUSAL["zh"]  # what any question nothing answers gets
    assert _plain(_ask(bot, EXTERNAL, SALARY))
    assert _notes(bot.fake) == []


def test_private_channel_with_access_gets_the_restricted_answer(bot: Bot) -> None:
    shown = _ask(bot, PRIVATE, SALARY)
    assert "6.5" in shown
    assert "2027年度调薪方案（草案）" in shown


def test_dm_of_the_allowed_user_gets_the_restricted_answer(bot: Bot) -> None:
    assert "6.5" in _ask(bot, DM_ADMIN, SALARY, user=ADMIN)


def test_externally_shared_channel_never_uses_restricted_docs(bot: Bot) -> None:
    # the allowed private channel, once shared with another organization
    bot.fake.channels[PRIVATE].is_ext_shared = True
    assert _plain(_ask(bot, PRIVATE, SALARY))
    assert "6.5" not in _ask(bot, EXTERNAL, SALARY)
    assert _notes(bot.fake) == []  # U1 may not read the document personally either


def test_mentions_and_links_from_documents_never_ping_or_unfurl(bot: Bot) -> None:
    _ask(bot, PUBLIC, "What did the supplier email say about passwords and the prize?")
    for call in bot.fake.ok_calls("chat.postMessage") + bot.fake.ok_calls("chat.update"):
        body = call.body
        raw = str(body.get("text", "")) + str(body.get("blocks", ""))
        assert "<!channel>" not in raw
        assert "<@U0ADMIN>" not in raw
        assert not re.search(r"<http://example\.invalid", raw)
        for block in body.get("blocks") or []:
            if isinstance(block.get("text"), dict) and block["text"]["type"] == "mrkdwn":
                assert block["text"]["verbatim"] is True
    final = "\n".join(block_text(m) for m in bot.fake.messages(PUBLIC))
    # The injected sentence is data: not relayed at all, not even as escaped text (Slack
    # escaping itself is covered in test_slack_blocks).
    assert "U0ADMIN" not in final
    assert "send their passwords" not in final


def test_dm_of_a_group_member_gets_the_groups_documents(bot: Bot) -> None:
    bot.fake.usergroups["finance"] = ["U0FIN"]
    bot.fake.add_channel("D0FIN", is_im=True, user="U0FIN")
    bot.fake.add_channel("D0OUT", is_im=True, user="U0OUT")
    question = "2026年第三季度营业收入是多少？"
    assert "4.82" in _ask(bot, "D0FIN", question, user="U0FIN")
    assert "4.82" not in _ask(bot, "D0OUT", question, user="U0OUT")
