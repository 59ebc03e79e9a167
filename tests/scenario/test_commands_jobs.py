"""The reindex job queue behind ``/ragbot reindex``: schema setup, one waiting job per KB,
failures reported to the admin, jobs of a dead worker resumed, DM fallback."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from bot.jobs import AlreadyQueuedError, JobDeps, JobQueue, ensure_schema, start_worker
from bot.slack.client import make_web_client
from bot.slack.listeners.commands import SlackNotifier
from tests.scenario.fake_slack import FakeSlack

pytestmark = [pytest.mark.scenario, pytest.mark.db]


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def notifier(fake: FakeSlack) -> SlackNotifier:
    return SlackNotifier(make_web_client("xoxb-test", fake.url))


def kb_with_sources(pool: ConnectionPool, embedder: Any, name: str, *,
                    sources: bool) -> None:
    from store.kb import get_or_create_kb, record_source

    with pool.connection() as conn:
        kb = get_or_create_kb(conn, name, embedder)
        if sources:
            record_source(conn, kb.id, {"path": "/nonexistent/docs", "doc_type": None,
                                        "acl": None})


def statuses(pool: ConnectionPool) -> list[str]:
    with pool.connection() as conn:
        return [r[0] for r in conn.execute(
            "SELECT status::text FROM procrastinate_jobs WHERE task_name = 'ragbot.reindex_kb' "
            "ORDER BY id")]


def wait_statuses(pool: ConnectionPool, expected: list[str], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while statuses(pool) != expected:
        assert time.monotonic() < deadline, statuses(pool)
        time.sleep(0.05)


def test_schema_setup_runs_once_across_concurrent_processes(db_url: str) -> None:
    results: list[bool] = []

    def setup() -> None:
        with psycopg.connect(db_url, autocommit=True) as conn:
            results.append(ensure_schema(conn))

    threads = [threading.Thread(target=setup) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False, False, True]
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert ensure_schema(conn) is False


def test_only_one_reindex_per_kb_waits_in_the_queue(pool: ConnectionPool) -> None:
    queue = JobQueue(pool)
    first = queue.defer_reindex(kb="hr", channel="C1", user="U1")
    with pytest.raises(AlreadyQueuedError):
        queue.defer_reindex(kb="hr", channel="C1", user="U2")
    other = queue.defer_reindex(kb="eng", channel="C1", user="U1")  # another KB is fine
    assert first != other
    assert [(j["kb"], j["status"]) for j in queue.active_reindexes()] == [
        ("hr", "todo"), ("eng", "todo")]


def test_failed_reindex_is_reported_to_the_admin_and_the_job_marked_failed(
        pool: ConnectionPool, db_url: str, embedder: Any, fake: FakeSlack,
        notifier: SlackNotifier) -> None:
    from bot.jobs import store_reindex
    from store.kb import kb_status

    kb_with_sources(pool, embedder, "empty", sources=False)
    queue = JobQueue(pool)
    worker = start_worker(db_url, JobDeps(reindex=store_reindex(pool, embedder),
                                          notifier=notifier), polling_interval_s=0.2)
    try:
        queue.defer_reindex(kb="empty", channel="C1", user="U1")
        (text,) = fake.wait_for(lambda f: [str(c.body["text"]) for c in
                                           f.ok_calls("chat.postEphemeral")
                                           if "failed" in str(c.body["text"])], timeout=20)
        wait_statuses(pool, ["failed"])
    finally:
        worker.stop()
    assert "no recorded sources" in text
    assert "ragbot ingest" in text
    assert "unchanged" in text
    with pool.connection() as conn:
        assert kb_status(conn, "empty")["generation"] == 1


def test_a_job_left_running_by_a_dead_worker_is_run_again_at_start(
        pool: ConnectionPool, db_url: str, notifier: SlackNotifier, fake: FakeSlack) -> None:
    queue = JobQueue(pool)
    job_id = queue.defer_reindex(kb="hr", channel="C1", user="U1")
    with pool.connection() as conn:  # a worker took it, then its process died an hour ago
        (dead,) = conn.execute("INSERT INTO procrastinate_workers (last_heartbeat) "
                               "VALUES (now() - interval '1 hour') RETURNING id").fetchone()
        conn.execute("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s "
                     "WHERE id = %s", [dead, job_id])
    runs: list[str] = []

    def reindex(kb: str, on_progress: Any) -> dict[str, int]:
        runs.append(kb)
        return {"documents": 3, "chunks": 9}

    worker = start_worker(db_url, JobDeps(reindex=reindex, notifier=notifier),
                          polling_interval_s=0.2)
    try:
        wait_statuses(pool, ["succeeded"])
    finally:
        worker.stop()
    assert runs == ["hr"]
    finished = [c for c in fake.ok_calls("chat.postEphemeral") if "finished" in c.body["text"]]
    assert len(finished) == 1
    assert "documents=3, chunks=9" in finished[0].body["text"]


def test_progress_is_throttled_and_goes_by_dm_where_ephemeral_is_impossible(
        pool: ConnectionPool, db_url: str, notifier: SlackNotifier, fake: FakeSlack) -> None:
    fake.fail("chat.postEphemeral", times=100, error="channel_not_found")

    def reindex(kb: str, on_progress: Any) -> dict[str, int]:
        for done in range(50):  # a burst of progress events: one message, not fifty
            on_progress({"stage": "building", "done": done, "total": 50})
        return {"documents": 50}

    queue = JobQueue(pool)
    worker = start_worker(db_url, JobDeps(reindex=reindex, notifier=notifier,
                                          progress_interval_s=60.0), polling_interval_s=0.2)
    try:
        queue.defer_reindex(kb="hr", channel="D0SOMEONEELSE", user="U1")
        wait_statuses(pool, ["succeeded"])
    finally:
        worker.stop()
    dms = [str(c.body["text"]) for c in fake.ok_calls("chat.postMessage")
           if c.body["channel"] == "U1"]
    assert len(dms) == 3, dms  # started, one progress line, finished
    assert "started" in dms[0]
    assert "done=0" in dms[1]
    assert "finished" in dms[2]


def test_a_job_that_keeps_killing_its_worker_is_marked_failed_not_retried_forever(
        pool: ConnectionPool, db_url: str, notifier: SlackNotifier) -> None:
    from bot.jobs import MAX_RESUMES

    queue = JobQueue(pool)
    job_id = queue.defer_reindex(kb="hr", channel="C1", user="U1")
    with pool.connection() as conn:
        (dead,) = conn.execute("INSERT INTO procrastinate_workers (last_heartbeat) "
                               "VALUES (now() - interval '1 hour') RETURNING id").fetchone()
        conn.execute("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s, "
                     "attempts = %s WHERE id = %s", [dead, MAX_RESUMES, job_id])
    runs: list[str] = []
    worker = start_worker(db_url, JobDeps(reindex=lambda kb, _: runs.append(kb),
                                          notifier=notifier), polling_interval_s=0.2)
    try:
        wait_statuses(pool, ["failed"])
    finally:
        worker.stop()
    assert runs == []
    assert queue.active_reindexes() == []  # the KB can be reindexed again
    queue.defer_reindex(kb="hr", channel="C1", user="U1")
