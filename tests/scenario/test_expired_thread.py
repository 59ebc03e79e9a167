"""A thread whose memory was deleted by retention: its next follow-up is answered as a new
conversation, with a note saying so (once)."""

from __future__ import annotations

import pytest

from bot.conversations import texts as m
from store.retention import prune_expired
from tests.scenario.conftest import PUBLIC, Bot, block_text

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]


def _answer(bot: Bot, ts: str) -> str:
    turn = bot.wait_done(PUBLIC, ts)
    assert turn.state == "done"
    msg = bot.shown(PUBLIC, turn)
    assert msg is not None
    return block_text(msg)


def test_follow_up_in_a_pruned_thread_starts_fresh_with_a_note(bot: Bot) -> None:
    first = bot.sender.mention(PUBLIC, "<@UBOT> Our Redis cache is out of memory, what now?")
    bot.sender.event(first)
    assert m.CONTEXT_EXPIRED["en"] not in _answer(bot, first["ts"])
    key = bot.wait_done(PUBLIC, first["ts"]).thread_key
    pool = bot.deps.pool
    with pool.connection() as conn:
        before = {r[0] for r in conn.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = %s", [key]).fetchall()}
        assert before
        # the thread went quiet 100 days ago (LangGraph stamps each checkpoint with "ts")
        conn.execute("UPDATE checkpoints SET checkpoint = jsonb_set(checkpoint, '{ts}', "
                     "to_jsonb((now() - interval '100 days')::text)) WHERE thread_id = %s",
                     [key])
        assert prune_expired(conn, days=90).conversations == 1

    reply = bot.sender.message(PUBLIC, "And with persistence turned on?",
                               thread_ts=first["ts"])
    bot.sender.event(reply)
    answer = _answer(bot, reply["ts"])
    assert m.CONTEXT_EXPIRED["en"] in answer
    with pool.connection() as conn:
        after = {r[0] for r in conn.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = %s", [key]).fetchall()}
    assert after
    assert not before & after  # a new conversation: none of the old memory came back

    again = bot.sender.message(PUBLIC, "Which eviction policy then?", thread_ts=first["ts"])
    bot.sender.event(again)
    assert m.CONTEXT_EXPIRED["en"] not in _answer(bot, again["ts"])
