"""Agent turns in worker processes, as ``ragbot serve`` runs them: the process that gets
Slack's requests only acknowledges and posts the first status line; workers answer, and a
worker that dies under a turn has it re-run or reported, as after a restart."""

from __future__ import annotations

import itertools
import os
from functools import partial
from pathlib import Path

import pytest

from store import conversations as journal
from tests.scenario.agents import always_dies, dies_once, slow_search
from tests.scenario.conftest import PUBLIC, Bot, block_text

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]

QUESTION = "<@UBOT> Which product line had the highest return rate in Q3 2026?"


def _bot_posts(bot: Bot, thread_ts: str) -> list[object]:
    return [c for c in bot.fake.ok_calls("chat.postMessage")
            if c.body.get("thread_ts") == thread_ts]


def test_question_is_answered_by_a_worker_process_with_paced_status(make_bot) -> None:  # type: ignore[no-untyped-def]
    bot = make_bot.processes(workers=1, pacer_interval=1.0)
    assert bot.deps.agent is None  # this process cannot answer: a worker must
    event = bot.sender.mention(PUBLIC, QUESTION)
    delivery = bot.sender.event(event)
    assert delivery.status == 200
    assert delivery.elapsed_s < 0.5
    turn = bot.wait_done(PUBLIC, event["ts"], timeout=120)
    assert turn.state == "done"
    assert turn.attempts == 1
    (status,) = _bot_posts(bot, event["ts"])  # the status message; the answer streams
    answer = block_text(bot.shown(PUBLIC, turn) or {})
    assert "Drift" in answer
    streamed = [c.at for m in ("chat.startStream", "chat.stopStream")
                for c in bot.fake.ok_calls(m)]
    writes = sorted([status.at] + [c.at for c in bot.fake.ok_calls("chat.update")  # type: ignore[attr-defined]
                                   if c.body.get("ts") == turn.status_id] + streamed)
    assert len(writes) >= 2  # posted by this process, the answer streamed by the worker
    # one pacer across the processes: never two writes of the thread within the interval
    assert all(b - a >= 0.95 for a, b in itertools.pairwise(writes))
    with bot.deps.pool.connection() as conn:
        bot_messages = conn.execute(
            "SELECT turn_id FROM bot_messages WHERE surface = 'slack' AND conversation = %s "
            "AND message_id = %s",
            [PUBLIC, (bot.shown(PUBLIC, turn) or {}).get("ts")]).fetchall()
    assert bot_messages == [(turn.id,)]  # recorded by the worker: reactions find the trace


def test_turn_whose_worker_is_killed_is_answered_by_a_new_worker(  # type: ignore[no-untyped-def]
        make_bot, tmp_path: Path) -> None:
    bot = make_bot.processes(partial(dies_once, str(tmp_path / "died")), workers=1)
    pids_before = set(bot.deps.work.wait_ready())
    event = bot.sender.mention(PUBLIC, QUESTION)
    assert bot.sender.event(event).status == 200
    turn = bot.wait_done(PUBLIC, event["ts"], timeout=120)
    assert (tmp_path / "died").exists()  # a worker did die under the turn
    assert turn.state == "done"
    assert turn.attempts == 2
    assert turn.owner == bot.deps.instance_id  # this process lived on and kept it
    assert len(_bot_posts(bot, event["ts"])) == 1  # the same status message
    assert "Drift" in block_text(bot.shown(PUBLIC, turn) or {})
    assert not pids_before & set(bot.deps.work.wait_ready())  # the dead worker was replaced
    # and the replacement answers the next question as usual
    again = bot.sender.mention(PUBLIC, "<@UBOT> How do I deploy to production?")
    bot.sender.event(again)
    assert bot.wait_done(PUBLIC, again["ts"], timeout=120).state == "done"


def test_turn_that_keeps_killing_its_worker_is_reported_with_its_trace_id(  # type: ignore[no-untyped-def]
        make_bot) -> None:
    bot = make_bot.processes(always_dies, workers=1, max_attempts=1)
    event = bot.sender.mention(PUBLIC, QUESTION)
    assert bot.sender.event(event).status == 200
    turn = bot.wait_done(PUBLIC, event["ts"], timeout=120)
    assert turn.state == "failed"
    assert turn.attempts == 2
    shown = block_text(bot.shown(PUBLIC, turn) or {})
    assert "restarted" in shown
    assert turn.trace_id in shown
    assert len(_bot_posts(bot, event["ts"])) == 1
    with bot.deps.pool.connection() as conn:
        (row,) = journal.turns_for_message(conn, "slack", PUBLIC, event["ts"])
    assert row.state == "failed"
    assert os.getpid() not in bot.deps.work.wait_ready()


def _apology_shown(bot: Bot, turn: journal.Turn) -> str:
    shown = block_text(bot.shown(PUBLIC, turn) or {})
    assert "Sorry, something went wrong" in shown
    assert turn.trace_id is not None
    assert turn.trace_id in shown
    return shown


def test_turn_past_its_deadline_is_stopped_with_an_apology_and_its_trace_id(  # type: ignore[no-untyped-def]
        make_bot) -> None:
    # each search takes 1.5 s against a 1 s deadline: the agent stops after that step
    bot = make_bot.processes(partial(slow_search, 1.5), workers=1, turn_timeout_s=1.0)
    pids_before = bot.deps.work.wait_ready()
    event = bot.sender.mention(PUBLIC, QUESTION)
    assert bot.sender.event(event).status == 200
    turn = bot.wait_done(PUBLIC, event["ts"], timeout=60)
    assert turn.state == "failed"
    _apology_shown(bot, turn)
    assert len(_bot_posts(bot, event["ts"])) == 1  # the status message became the apology
    assert bot.deps.work.wait_ready() == pids_before  # the worker stopped the turn itself


def test_worker_stuck_past_its_deadline_is_replaced_and_the_asker_gets_the_apology(  # type: ignore[no-untyped-def]
        make_bot) -> None:
    # a search that does not come back within the turn: the worker cannot stop by itself
    bot = make_bot.processes(partial(slow_search, 600.0), workers=1, turn_timeout_s=2.0)
    pids_before = set(bot.deps.work.wait_ready())
    event = bot.sender.mention(PUBLIC, QUESTION)
    assert bot.sender.event(event).status == 200
    turn = bot.wait_done(PUBLIC, event["ts"], timeout=60)
    assert turn.state == "failed"
    assert turn.attempts == 1  # stopped, not re-run: it would hang again
    _apology_shown(bot, turn)
    assert len(_bot_posts(bot, event["ts"])) == 1
    assert not pids_before & set(bot.deps.work.wait_ready())  # the stuck worker was replaced
