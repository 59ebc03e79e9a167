"""Conversations: @mention answered in its thread, DMs in the DM's thread, follow-ups in
an answered thread without a new mention, and the live status message."""

from __future__ import annotations

import itertools
import time

import pytest

from tests.scenario.agents import SlowStages
from tests.scenario.conftest import ADMIN, DM_ADMIN, PUBLIC, Bot, block_text

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]


def _answer(bot: Bot, channel: str, ts: str) -> str:
    turn = bot.wait_done(channel, ts)
    assert turn.state == "done"
    msg = bot.shown(channel, turn)
    assert msg is not None
    return block_text(msg)


def test_mention_in_channel_is_answered_in_its_thread_with_citations(bot: Bot) -> None:
    event = bot.sender.mention(PUBLIC, "<@UBOT> Which product line had the highest return "
                                       "rate in Q3 2026?")
    assert bot.sender.event(event).status == 200
    answer = _answer(bot, PUBLIC, event["ts"])
    posts = bot.fake.ok_calls("chat.postMessage")
    assert len(posts) == 1  # the status message
    assert posts[0].body["thread_ts"] == event["ts"]
    assert posts[0].body["unfurl_links"] is False
    assert posts[0].body["unfurl_media"] is False
    assert "Drift" in answer
    assert "[1] 2026 Q3 Returns Report" in answer  # numbered source with its title
    assert "returns-report-2026-q3.md" not in answer  # never a server file path
    assert not bot.fake.calls("conversations.replies")  # memory is the checkpoint


def test_dm_is_answered_in_the_dms_thread_with_assistant_status(bot: Bot) -> None:
    event = bot.sender.message(DM_ADMIN, "How do I deploy to production?", user=ADMIN,
                               channel_type="im")
    bot.sender.event(event)
    answer = _answer(bot, DM_ADMIN, event["ts"])
    assert bot.fake.ok_calls("chat.postMessage")[0].body["thread_ts"] == event["ts"]
    assert "Production Deploy Procedure" in answer
    statuses = [c.body for c in bot.fake.calls("assistant.threads.setStatus")]
    assert statuses[0]["thread_ts"] == event["ts"]
    assert statuses[0]["status"]
    assert statuses[-1]["status"] == ""  # cleared when the answer is shown


def test_reply_in_answered_thread_is_a_follow_up_without_mention(bot: Bot) -> None:
    first = bot.sender.mention(PUBLIC, "<@UBOT> Redis内存满了怎么办")
    bot.sender.event(first)
    assert "] Redis内存满了怎么办" in _answer(bot, PUBLIC, first["ts"])  # cited by title

    reply = bot.sender.message(PUBLIC, "如果用了持久化还不行呢", thread_ts=first["ts"])
    bot.sender.event(reply)
    answer = _answer(bot, PUBLIC, reply["ts"])
    # the follow-up alone names no system: only the earlier turn makes it about Redis
    assert "] Redis内存满了怎么办" in answer
    posts = bot.fake.ok_calls("chat.postMessage")
    assert [p.body["thread_ts"] for p in posts] == [first["ts"], first["ts"]]


def test_replies_not_meant_for_the_bot_are_ignored(bot: Bot) -> None:
    # a thread the bot never answered
    other = bot.sender.message(PUBLIC, "lunch?", user="U2")
    bot.sender.event(bot.sender.message(PUBLIC, "Redis内存满了怎么办", thread_ts=other["ts"]))
    # people talking to each other in a thread the bot answered
    first = bot.sender.mention(PUBLIC, "<@UBOT> How do I deploy to production?")
    bot.sender.event(first)
    _answer(bot, PUBLIC, first["ts"])
    aside = bot.sender.message(PUBLIC, "<@U2> can you take this one?", thread_ts=first["ts"])
    assert bot.sender.event(aside).status == 200
    # a later follow-up proves the asides were processed (and skipped) before it
    follow = bot.sender.message(PUBLIC, "Are those the only steps?", thread_ts=first["ts"])
    bot.sender.event(follow)
    _answer(bot, PUBLIC, follow["ts"])
    assert len(bot.fake.ok_calls("chat.postMessage")) == 2


def test_status_message_comes_first_and_updates_at_most_once_a_second(make_bot) -> None:  # type: ignore[no-untyped-def]
    agent = SlowStages(make_bot.real_agent(), delay_s=0.4)
    bot = make_bot(agent, pacer_interval=1.2)  # the default
    event = bot.sender.mention(PUBLIC, "<@UBOT> Which product line had the highest return "
                                       "rate in Q3 2026?")
    sent_at = time.monotonic()
    delivered = bot.sender.event(event)
    turn = bot.wait_done(PUBLIC, event["ts"])
    streamed = [*bot.fake.ok_calls("chat.startStream"), *bot.fake.ok_calls("chat.appendStream"),
                *bot.fake.ok_calls("chat.stopStream")]
    writes = [c for c in bot.fake.ok_calls("chat.postMessage") + bot.fake.ok_calls("chat.update")
              if c.body.get("ts", turn.status_id) == turn.status_id] + streamed
    writes.sort(key=lambda c: c.at)
    first = writes[0]
    assert first.method == "chat.postMessage"
    assert first.at - sent_at < 1.0  # the status message appears within a second
    assert len(writes) >= 3  # status, at least one stage update, the answer's stream
    gaps = [b.at - a.at for a, b in itertools.pairwise(writes)]
    assert min(gaps) >= 1.0, gaps
    assert delivered.elapsed_s < 1.0
    assert "Drift" in block_text(bot.shown(PUBLIC, turn) or {})


def test_the_answer_streams_in_the_thread_and_the_status_message_goes(make_bot) -> None:  # type: ignore[no-untyped-def]
    # verified sentences that arrive before the turn ends stream (an answer complete by the
    # thread's next write slot goes out as one final message instead)
    bot = make_bot(SlowStages(make_bot.real_agent(), delay_s=0.4))
    event = bot.sender.mention(PUBLIC, "<@UBOT> How do I deploy to production?")
    bot.sender.event(event)
    turn = bot.wait_done(PUBLIC, event["ts"])
    (start,) = bot.fake.ok_calls("chat.startStream")
    assert start.body["thread_ts"] == event["ts"]
    assert start.body["recipient_user_id"] == event["user"]
    assert start.body["recipient_team_id"]
    assert "Production Deploy Procedure" not in start.body["markdown_text"]  # sources last
    shown = bot.shown(PUBLIC, turn)  # the journal's message of the turn: votes find it
    assert shown is not None
    assert shown["streaming"] is False  # the streamed message, stopped
    (stop,) = bot.fake.ok_calls("chat.stopStream")
    assert stop.body["ts"] == shown["ts"]
    assert "Production Deploy Procedure" in block_text(shown)  # then the answer with sources
    assert bot.fake.message(PUBLIC, turn.status_id) is None  # the status message was removed


def test_an_answer_that_cannot_stream_replaces_the_status_message(make_bot) -> None:  # type: ignore[no-untyped-def]
    bot = make_bot(SlowStages(make_bot.real_agent(), delay_s=0.4))
    bot.fake.fail("chat.startStream", error="not_allowed")
    event = bot.sender.mention(PUBLIC, "<@UBOT> How do I deploy to production?")
    bot.sender.event(event)
    turn = bot.wait_done(PUBLIC, event["ts"])
    assert len(bot.fake.calls("chat.startStream")) == 1  # refused once, not tried again
    assert bot.fake.ok_calls("chat.stopStream") == []
    shown = bot.fake.message(PUBLIC, turn.status_id)
    assert shown is not None
    assert "Production Deploy Procedure" in block_text(shown)
