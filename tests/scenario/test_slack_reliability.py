"""Reliability under Slack's delivery semantics: retries, double delivery, replicas,
signatures, odd events, rate limits, failures and restarts."""

from __future__ import annotations

import threading
import time

import pytest

from store import conversations as journal
from tests.scenario.agents import BlockingAgent, ExplodingAgent
from tests.scenario.conftest import PUBLIC, Bot, block_text

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]

QUESTION = "<@UBOT> Which product line had the highest return rate in Q3 2026?"


def _bot_posts(bot: Bot, thread_ts: str) -> list[object]:
    return [c for c in bot.fake.ok_calls("chat.postMessage")
            if c.body.get("thread_ts") == thread_ts]


def test_three_retries_of_one_event_post_one_answer(bot: Bot) -> None:
    event = bot.sender.mention(PUBLIC, QUESTION)
    first = bot.sender.event(event, event_id="EvSAME")
    retries = [bot.sender.event(event, event_id="EvSAME", retry_num=n) for n in (1, 2, 3)]
    assert [d.status for d in [first, *retries]] == [200] * 4
    bot.wait_done(PUBLIC, event["ts"])
    time.sleep(0.3)  # give a wrongly accepted retry the time to post
    assert len(_bot_posts(bot, event["ts"])) == 1


def test_app_mention_and_message_double_delivery_posts_one_answer(bot: Bot) -> None:
    first = bot.sender.mention(PUBLIC, QUESTION)
    bot.sender.event(first)
    bot.wait_done(PUBLIC, first["ts"])
    # a mention inside a thread the bot answered arrives as app_mention AND as message
    text = "<@UBOT> How do I deploy to production?"
    ts = bot.sender.next_ts()
    events = [bot.sender.mention(PUBLIC, text, ts=ts, thread_ts=first["ts"]),
              bot.sender.message(PUBLIC, text, ts=ts, thread_ts=first["ts"])]
    threads = [threading.Thread(target=bot.sender.event, args=(e,)) for e in events]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bot.wait_done(PUBLIC, ts)
    time.sleep(0.3)
    assert len(_bot_posts(bot, first["ts"])) == 2  # one per question
    with bot.deps.pool.connection() as conn:
        assert len(journal.turns_for_message(conn, "slack", PUBLIC, ts)) == 1


def test_two_replicas_answer_a_redelivered_event_once(make_bot) -> None:  # type: ignore[no-untyped-def]
    one, two = make_bot(), make_bot()
    event = one.sender.mention(PUBLIC, QUESTION)
    one.sender.event(event, event_id="EvREPLICA")
    two.sender.event(event, event_id="EvREPLICA", retry_num=1)
    two.sender.event(two.sender.message(PUBLIC, QUESTION, ts=event["ts"]))  # double delivery
    one.wait_done(PUBLIC, event["ts"])
    time.sleep(0.3)
    assert len(_bot_posts(one, event["ts"])) == 1


def test_bad_signature_and_stale_timestamp_get_401(bot: Bot) -> None:
    event = bot.sender.mention(PUBLIC, QUESTION)
    assert bot.sender.event(event, signature="v0=" + "0" * 64).status == 401
    stale = int(time.time()) - 6 * 60
    assert bot.sender.event(event, timestamp=stale).status == 401
    # the same event, properly signed and fresh, is accepted: the 401s stored nothing
    assert bot.sender.event(event).status == 200
    bot.wait_done(PUBLIC, event["ts"])
    assert len(_bot_posts(bot, event["ts"])) == 1


def test_ack_comes_before_the_work(make_bot) -> None:  # type: ignore[no-untyped-def]
    agent = BlockingAgent()
    bot = make_bot(agent)
    try:
        event = bot.sender.mention(PUBLIC, QUESTION)
        delivery = bot.sender.event(event)
        assert delivery.status == 200
        assert delivery.elapsed_s < 0.5
        assert agent.entered.wait(5)  # the answer is being worked on after the ack
        with bot.deps.pool.connection() as conn:
            (turn,) = journal.turns_for_message(conn, "slack", PUBLIC, event["ts"])
        assert turn.state == "running"
    finally:
        bot.service.maintenance.stop(retire=False)
        agent.release.set()


def test_own_bot_edited_deleted_and_hidden_messages_are_ignored(bot: Bot) -> None:
    dm = "D0USER"
    bot.fake.add_channel(dm, is_im=True, user="U1")
    s = bot.sender
    ignored = [
        s.message(dm, "from me", user="UBOT", channel_type="im", bot_id="BBOT"),
        s.message(dm, "another bot", user="U9", channel_type="im", bot_id="BOTHER"),
        s.message(dm, "bot message", channel_type="im", subtype="bot_message"),
        s.message(dm, "edited", channel_type="im", subtype="message_changed",
                  message={"text": "edited"}),
        s.message(dm, "", channel_type="im", subtype="message_deleted"),
        s.message(dm, "joined", channel_type="im", subtype="channel_join"),
        s.message(dm, "hidden", channel_type="im", hidden=True),
    ]
    for event in ignored:
        assert s.event(event).status == 200
    real = s.message(dm, "How do I deploy to production?", channel_type="im")
    s.event(real)
    bot.wait_done(dm, real["ts"])
    assert len(bot.fake.ok_calls("chat.postMessage")) == 1
    with bot.deps.pool.connection() as conn:
        assert conn.execute("SELECT count(*) FROM turns").fetchone() == (1,)


def test_empty_mention_gets_help_without_asking_the_agent(make_bot) -> None:  # type: ignore[no-untyped-def]
    bot = make_bot(ExplodingAgent())  # any agent call would turn into an apology
    event = bot.sender.mention(PUBLIC, "<@UBOT>  ")
    bot.sender.event(event)
    turn = bot.wait_done(PUBLIC, event["ts"])
    assert turn.state == "done"
    text = block_text(bot.fake.ok_calls("chat.postMessage")[0].body)
    assert "@mention me" in text


def test_long_message_is_cut_with_a_note(bot: Bot) -> None:
    long_text = "<@UBOT> " + "Redis内存满了怎么办 " * 400
    event = bot.sender.mention(PUBLIC, long_text)
    bot.sender.event(event)
    turn = bot.wait_done(PUBLIC, event["ts"])
    assert len(turn.text) == 4000
    assert turn.truncated
    answer = block_text(bot.shown(PUBLIC, turn) or {})
    assert "4,000" in answer


def test_failure_shows_apology_with_trace_id_never_the_exception(make_bot) -> None:  # type: ignore[no-untyped-def]
    from structlog.contextvars import merge_contextvars
    from structlog.testing import capture_logs

    bot = make_bot(ExplodingAgent())
    event = bot.sender.mention(PUBLIC, QUESTION)
    with capture_logs(processors=[merge_contextvars]) as logs:
        bot.sender.event(event)
        turn = bot.wait_done(PUBLIC, event["ts"])
    assert turn.state == "failed"
    shown = block_text(bot.shown(PUBLIC, turn) or {})
    assert turn.trace_id
    assert turn.trace_id in shown
    assert "hunter2" not in shown
    assert "RuntimeError" not in shown
    failed = [e for e in logs if e["event"] == "turn_failed"]
    # logged from the worker thread with the request's bound context
    assert failed
    assert failed[0]["trace_id"] == turn.trace_id
    assert failed[0]["thread"].endswith(event["ts"])


def test_rate_limited_post_is_retried_after_retry_after(bot: Bot) -> None:
    bot.fake.rate_limit("chat.postMessage", times=1, retry_after=1)
    event = bot.sender.mention(PUBLIC, QUESTION)
    bot.sender.event(event)
    turn = bot.wait_done(PUBLIC, event["ts"])
    assert turn.state == "done"
    posts = bot.fake.calls("chat.postMessage")
    assert [c.status for c in posts] == [429, 200]
    assert posts[1].at - posts[0].at >= 1.0
    assert "Drift" in block_text(bot.shown(PUBLIC, turn) or {})


def _crash_midway(make_bot) -> tuple[Bot, BlockingAgent, dict]:  # type: ignore[no-untyped-def,type-arg]
    """A bot acks a question, shows its status, then its process dies mid-answer."""
    agent = BlockingAgent()
    dying = make_bot(agent)
    event = dying.sender.mention(PUBLIC, QUESTION)
    dying.sender.event(event)
    assert agent.entered.wait(10)
    dying.service.http.shutdown()
    dying.service.maintenance.stop(retire=False)  # no more heartbeats: as after a kill
    return dying, agent, event


def test_turn_cut_by_a_crash_is_answered_after_restart(make_bot) -> None:  # type: ignore[no-untyped-def]
    _, agent, event = _crash_midway(make_bot)
    try:
        restarted = make_bot()  # a new process on the same database
        turn = restarted.wait_done(PUBLIC, event["ts"], timeout=60)
        assert turn.state == "done"
        assert turn.attempts == 2
        assert turn.owner == restarted.deps.instance_id
        # the same status message became the answer: still one message in the thread
        assert len(_bot_posts(restarted, event["ts"])) == 1
        assert "Drift" in block_text(restarted.shown(PUBLIC, turn) or {})
    finally:
        agent.release.set()


def test_turn_that_cannot_be_resumed_is_reported_with_its_trace_id(make_bot) -> None:  # type: ignore[no-untyped-def]
    _, agent, event = _crash_midway(make_bot)
    try:
        restarted = make_bot(max_attempts=1)  # already tried once: report, do not re-run
        turn = restarted.wait_done(PUBLIC, event["ts"], timeout=60)
        assert turn.state == "failed"
        shown = block_text(restarted.shown(PUBLIC, turn) or {})
        assert "restarted" in shown
        assert turn.trace_id in shown
    finally:
        agent.release.set()
