"""Slack conversations bound to several knowledge bases: a DM answered from the right one of
three, a channel bound to two (through signed requests to the real app and the fake Slack
Web API)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from store.traces import get_trace, recent_traces
from tests.multikb_corpus import ingest_kbs
from tests.scenario.conftest import ADMIN, DM_ADMIN, PUBLIC, Bot, block_text

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]


def _answer(bot: Bot, channel: str, ts: str) -> tuple[str, dict[str, Any]]:
    turn = bot.wait_done(channel, ts)
    assert turn.state == "done"
    msg = bot.shown(channel, turn)
    assert msg is not None
    with bot.deps.pool.connection() as conn:
        latest = recent_traces(conn, turn.thread_key, limit=1)
        trace = get_trace(conn, latest[0]["trace_id"]) if latest else None
    assert trace is not None
    return block_text(msg), trace


@pytest.fixture
def kb_bot(make_bot: Any, scenario_pool: Any, embedder: Any, tmp_path: Path) -> Bot:
    ingest_kbs(scenario_pool, embedder, tmp_path / "kbs")
    return make_bot(settings={"RAGBOT_DM_KBS": "hr+it+eng",
                              "RAGBOT_CHANNEL_KBS": f"{PUBLIC}=it+eng"})


def test_dm_question_is_answered_from_the_right_kb_among_three(kb_bot: Bot) -> None:
    event = kb_bot.sender.message(DM_ADMIN, "How many weeks of paid parental leave do new "
                                  "parents get?", user=ADMIN, channel_type="im")
    kb_bot.sender.event(event)
    answer, trace = _answer(kb_bot, DM_ADMIN, event["ts"])
    assert trace["kb"] == "hr+it+eng"
    assert trace["kbs_searched"] == ["hr"]
    assert "20 weeks" in answer
    assert "[1] Parental Leave Policy (hr)" in answer  # the KB beside the citation


def test_channel_bound_to_two_kbs_answers_from_them_and_not_from_others(kb_bot: Bot) -> None:
    event = kb_bot.sender.mention(PUBLIC, "<@UBOT> Which day do services ship on the release "
                                          "train?")
    kb_bot.sender.event(event)
    answer, trace = _answer(kb_bot, PUBLIC, event["ts"])
    assert trace["kb"] == "it+eng"
    assert trace["kbs_searched"] == ["eng"]
    assert "Thursday" in answer
    assert "Release Train (eng)" in answer

    other = kb_bot.sender.mention(PUBLIC, "<@UBOT> How many weeks of paid parental leave do "
                                          "new parents get?")
    kb_bot.sender.event(other)
    answer, trace = _answer(kb_bot, PUBLIC, other["ts"])
    assert set(trace["kbs_searched"]) <= {"it", "eng"}  # hr is not bound to this channel
    assert "20 weeks" not in answer
    assert "(hr)" not in answer
