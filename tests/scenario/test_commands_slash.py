"""``/ragbot reindex|status|help`` through the real app, with the procrastinate worker."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from tests.scenario.conftest import ADMIN, KB, PUBLIC, Bot, _Factory
from tests.scenario.fake_slack import FakeSlack

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]


@pytest.fixture
def ops_bot(make_bot: _Factory, scenario_pool: ConnectionPool,
            monkeypatch: pytest.MonkeyPatch) -> Bot:
    """The bot with ADMIN as its only admin and the reindex job queue wired in."""
    from bot.jobs import JobQueue

    monkeypatch.setenv("RAGBOT_ADMINS", f"{ADMIN}, U0OTHERADMIN")
    return make_bot(jobs=JobQueue(scenario_pool))


@pytest.fixture
def worker(ops_bot: Bot, scenario_db: str, embedder: Any) -> Iterator[Any]:
    """The job worker ``ragbot serve`` runs, on the scenario database."""
    from bot.slack.listeners.commands import start_job_worker

    w = start_job_worker(scenario_db, ops_bot.deps.pool, embedder, ops_bot.deps.client,
                         polling_interval_s=0.2)
    yield w
    w.stop()


def slash(bot: Bot, text: str, user: str) -> tuple[int, dict[str, Any], float]:
    delivery = bot.sender.command({
        "command": "/ragbot", "text": text, "user_id": user, "channel_id": PUBLIC,
        "channel_name": "general", "trigger_id": "1.2.abc",
        "response_url": "http://127.0.0.1:9/commands/never-used"})
    body = json.loads(delivery.body) if delivery.body.strip().startswith("{") else {}
    return delivery.status, body, delivery.elapsed_s


def ephemerals(fake: FakeSlack, user: str) -> list[str]:
    return [str(c.body.get("text")) for c in fake.ok_calls("chat.postEphemeral")
            if c.body.get("user") == user and c.body.get("channel") == PUBLIC]


def jobs(bot: Bot) -> list[tuple[str, str]]:
    with bot.deps.pool.connection() as conn:
        rows = conn.execute("SELECT task_name, status::text FROM procrastinate_jobs "
                            "WHERE task_name = 'ragbot.reindex_kb' ORDER BY id").fetchall()
    return [(r[0], r[1]) for r in rows]


def wait_job_status(bot: Bot, status: str, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while jobs(bot) != [("ragbot.reindex_kb", status)]:
        assert time.monotonic() < deadline, jobs(bot)
        time.sleep(0.05)


def test_non_admin_reindex_is_refused_at_once_and_queues_nothing(ops_bot: Bot) -> None:
    status, body, elapsed = slash(ops_bot, f"reindex {KB}", "U0INTERN")
    assert status == 200
    assert elapsed < 3.0
    assert "admins only" in body["text"]
    assert "RAGBOT_ADMINS" in body["text"]
    assert body.get("response_type", "ephemeral") == "ephemeral"
    assert jobs(ops_bot) == []


def test_admin_reindex_is_acknowledged_at_once_runs_in_the_background_and_reports(
        ops_bot: Bot, worker: Any) -> None:
    from store.kb import kb_status

    with ops_bot.deps.pool.connection() as conn:
        before = kb_status(conn, KB)
    status, body, elapsed = slash(ops_bot, f"reindex {KB}", ADMIN)
    assert status == 200
    assert elapsed < 3.0
    assert "Reindex of `samples` requested" in body["text"]

    done = ops_bot.fake.wait_for(
        lambda f: [t for t in ephemerals(f, ADMIN) if "finished" in t], timeout=240)
    texts = ephemerals(ops_bot.fake, ADMIN)
    assert any("started" in t for t in texts)
    assert f"documents={before['documents']}," in done[0]
    wait_job_status(ops_bot, "succeeded")  # the result is posted just before it is recorded
    with ops_bot.deps.pool.connection() as conn:
        after = kb_status(conn, KB)
    assert after["generation"] > before["generation"]
    assert after["documents"] == before["documents"]


def test_reindex_of_an_unknown_kb_says_so_and_queues_nothing(ops_bot: Bot) -> None:
    status, _body, _ = slash(ops_bot, "reindex nope", ADMIN)
    assert status == 200
    msg = ops_bot.fake.wait_for(lambda f: ephemerals(f, ADMIN), timeout=10)
    assert "`nope` does not exist" in msg[0]
    assert jobs(ops_bot) == []


def test_status_shows_an_admin_the_kbs_and_a_queued_reindex(ops_bot: Bot) -> None:
    ops_bot.deps.jobs.defer_reindex(kb=KB, channel=PUBLIC, user=ADMIN)  # no worker: waits
    status, _, elapsed = slash(ops_bot, "status", ADMIN)
    assert status == 200
    assert elapsed < 3.0
    from store.kb import kb_status

    (text,) = ops_bot.fake.wait_for(lambda f: ephemerals(f, ADMIN), timeout=10)
    with ops_bot.deps.pool.connection() as conn:
        documents = kb_status(conn, KB)["documents"]
    assert f"`samples`: {documents} documents" in text
    assert "reindex queued" in text


def test_status_shows_others_only_that_the_bot_is_up(ops_bot: Bot) -> None:
    ops_bot.deps.jobs.defer_reindex(kb=KB, channel=PUBLIC, user=ADMIN)
    status, body, _ = slash(ops_bot, f"status {KB}", "U0INTERN")
    assert status == 200
    assert body["response_type"] == "ephemeral"
    assert "ragbot is up" in body["text"]
    for detail in (KB, "documents", "chunks", "generation", "reindex", "all-MiniLM"):
        assert detail not in body["text"]
    assert ephemerals(ops_bot.fake, "U0INTERN") == []  # nothing follows the ack


def test_help_and_unknown_commands_answer_in_the_ack(ops_bot: Bot) -> None:
    _, body, _ = slash(ops_bot, "", "U0INTERN")
    assert "/ragbot reindex" in body["text"]
    assert "/ragbot status" in body["text"]
    assert "/ragbot 重建索引" in body["text"]  # a bare command has no language: both
    _, body, _ = slash(ops_bot, "frobnicate", "U0INTERN")
    assert "Unknown command `frobnicate`" in body["text"]


def test_commands_and_reactions_are_acknowledged_fast(ops_bot: Bot) -> None:
    """20 ``/ragbot`` commands and 20 reactions: every ack well within Slack's 3 s."""
    import statistics

    command_s = [slash(ops_bot, text, user)[2] for text, user in
                 [("help", "U0INTERN"), ("status", "U0INTERN"), ("reindex", "U0INTERN"),
                  ("bogus", "U0INTERN")] * 5]
    reaction_s = []
    for i in range(20):
        event = {"type": "reaction_added", "user": "U2", "reaction": "+1",
                 "item": {"type": "message", "channel": PUBLIC, "ts": f"1.{i}"},
                 "event_ts": f"2.{i}"}
        delivery = ops_bot.sender.event(event)
        assert delivery.status == 200
        reaction_s.append(delivery.elapsed_s)
    for name, samples in (("command", command_s), ("reaction", reaction_s)):
        ordered = sorted(samples)
        print(f"{name}_ack_ms p50={statistics.median(ordered) * 1000:.1f} "
              f"max={ordered[-1] * 1000:.1f} n={len(ordered)}")
        assert ordered[-1] < 1.0
