"""Data expires: ``prune_expired`` deletes what is older than the retention period (and
keeps what is recent, still running, or judged by a vote), ``ragbot db prune`` runs it, the
job worker schedules it daily, and a deleted or restricted document leaves stored traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from store.retention import SCRUBBED, prune_expired
from store.traces import get_trace, save_trace

pytestmark = pytest.mark.db

OLD, RECENT = "now() - interval '120 days'", "now() - interval '5 days'"


def _turn(conn: psycopg.Connection[Any], ts: str, state: str, age: str) -> None:
    conn.execute(
        "INSERT INTO turns (surface, workspace, conversation, message_id, thread, thread_key, "
        "asker, kind, text, kbs, state, owner, updated_at) VALUES ('slack', 'T1', 'C1', %s, "
        f"%s, %s, 'U1', 'ask', 'which vendor owns the pager rota?', '{{kb}}', %s, 'i1', {age})",
        [ts, ts, f"T1:C1:{ts}", state])


def _checkpoint(conn: psycopg.Connection[Any], thread: str, days_ago: int) -> None:
    checkpoint = {"v": 1, "id": f"cp-{thread}", "ts": f"{_iso(days_ago)}",
                  "channel_values": {}, "channel_versions": {}, "versions_seen": {}}
    conn.execute("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, checkpoint, "
                 "metadata) VALUES (%s, '', %s, %s, '{}')",
                 [thread, f"cp-{thread}", json.dumps(checkpoint)])
    conn.execute("INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, "
                 "type, blob) VALUES (%s, '', 'messages', '1', 'msgpack', 'x')", [thread])


def _iso(days_ago: int) -> str:
    from datetime import UTC, datetime, timedelta

    return (datetime.now(UTC) - timedelta(days=days_ago)).isoformat()


def _count(conn: psycopg.Connection[Any], sql: str, *params: Any) -> int:
    row = conn.execute(sql, list(params)).fetchone()
    assert row is not None
    return int(row[0])


def test_prune_deletes_only_what_is_past_retention(pool: ConnectionPool, db_url: str) -> None:
    from agent.memory import Checkpointer

    Checkpointer(db_url, max_size=1).close()  # LangGraph's tables, as the bot creates them
    with pool.connection() as conn:
        _turn(conn, "1.1", "done", OLD)
        _turn(conn, "1.2", "failed", OLD)
        _turn(conn, "1.3", "running", OLD)  # unfinished: recovery still needs it
        _turn(conn, "1.4", "done", RECENT)
        for tid, age in (("old-trace", OLD), ("new-trace", RECENT)):
            save_trace(conn, {"trace_id": tid, "thread_id": "T1:C1:1.1", "question": "q"})
            conn.execute(f"UPDATE agent_traces SET created_at = {age} WHERE trace_id = %s",
                         [tid])
        _checkpoint(conn, "T1:C1:9.1", 200)  # idle, no vote: forgotten
        _checkpoint(conn, "T1:C1:9.2", 200)  # idle but voted on: kept
        _checkpoint(conn, "T1:C1:9.3", 3)  # recent: kept
        for ts in ("9.1", "9.2"):
            conn.execute("INSERT INTO threads (surface, conversation, thread, workspace, "
                         "thread_key, kbs) VALUES ('slack', 'C1', %s, 'T1', %s, '{kb}')",
                         [ts, f"T1:C1:{ts}"])
        conn.execute("INSERT INTO bot_messages (surface, conversation, message_id, trace_id, "
                     "thread_key) VALUES ('slack', 'C1', '9.25', 'gone-trace', 'T1:C1:9.2')")
        conn.execute("INSERT INTO feedback_votes (channel, message_ts, user_id, vote, trace_id) "
                     "VALUES ('C1', '9.25', 'U2', 1, 'gone-trace')")
        # reactions: an old one held on a message never recorded as an answer goes; one on
        # a recorded answer, and a recent held one, stay
        conn.execute(
            "INSERT INTO feedback_reactions (channel, message_ts, user_id, vote, present, "
            f"event_ts, updated_at) VALUES ('C1', '9.26', 'U3', 1, true, 1, {OLD}), "
            f"('C1', '9.25', 'U2', 1, true, 1, {OLD}), ('C1', '9.27', 'U4', -1, true, 2, {RECENT})")
        conn.execute(f"INSERT INTO deliveries (surface, delivery_id, received_at) VALUES "
                     f"('slack', 'Ev-old', {OLD}), ('slack', 'Ev-new', {RECENT})")
        kb = conn.execute("INSERT INTO knowledge_bases (name, embed_model, embed_dim) "
                          "VALUES ('kb', 'm', 3) RETURNING id").fetchone()
        assert kb is not None
        for version, latest, archived in ((1, False, OLD), (2, False, RECENT), (3, True, "NULL")):
            conn.execute(
                "INSERT INTO documents (kb_id, generation, doc_key, source, title, "
                f"content_hash, version, is_latest, archived_at) VALUES (%s, 1, 'pager.md', "
                f"'pager.md', 'Pager rota', 'h', %s, %s, {archived})", [kb[0], version, latest])

        report = prune_expired(conn, days=90)

        assert report.to_json() == {"turns": 2, "traces": 1, "conversations": 1,
                                    "dedup_events": 1, "document_versions": 1,
                                    "held_reactions": 1}
        assert [r[0] for r in conn.execute("SELECT message_ts FROM feedback_reactions "
                                           "ORDER BY 1").fetchall()] == ["9.25", "9.27"]
        assert _count(conn, "SELECT count(*) FROM turns") == 2
        assert get_trace(conn, "old-trace") is None
        assert get_trace(conn, "new-trace") is not None
        threads = [r[0] for r in conn.execute(
            "SELECT DISTINCT thread_id FROM checkpoints ORDER BY 1").fetchall()]
        assert threads == ["T1:C1:9.2", "T1:C1:9.3"]
        assert _count(conn, "SELECT count(*) FROM checkpoint_blobs "
                            "WHERE thread_id = 'T1:C1:9.1'") == 0
        expired = conn.execute("SELECT thread FROM threads "
                               "WHERE context_expired_at IS NOT NULL").fetchall()
        assert expired == [("9.1",)]
        assert _count(conn, "SELECT count(*) FROM deliveries") == 1
        assert [r[0] for r in conn.execute(
            "SELECT version FROM documents ORDER BY version").fetchall()] == [2, 3]
        # a second run finds nothing more
        assert sum(prune_expired(conn, days=90).to_json().values()) == 0


def test_db_prune_command_prints_what_it_removed(
        db_url: str, pool: ConnectionPool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("RAGBOT_HOME", str(tmp_path))
    monkeypatch.setenv("RAGBOT_RETENTION_DAYS", "30")
    with pool.connection() as conn:
        _turn(conn, "2.1", "done", "now() - interval '40 days'")
        _turn(conn, "2.2", "done", "now() - interval '20 days'")
    assert main(["db", "prune"]) == 0
    out = capsys.readouterr().out
    assert "older than 30 days" in out
    assert "turns: 1" in out
    assert main(["db", "prune", "--days", "10"]) == 0
    assert "turns: 1" in capsys.readouterr().out
    assert main(["db", "prune", "--days", "0"]) == 2


def test_job_worker_schedules_the_prune_daily(db_url: str) -> None:
    from bot.jobs import PRUNE_TASK, JobDeps, build_worker_app

    calls: list[int] = []
    deps = JobDeps(reindex=lambda kb, _: None, notifier=None,  # type: ignore[arg-type]
                   prune=lambda: calls.append(1) or {"turns": 0})
    app = build_worker_app(db_url, deps)
    periodic = [t for t in app.periodic_registry.periodic_tasks.values()
                if t.task.name == PRUNE_TASK]
    assert len(periodic) == 1
    assert periodic[0].cron == "17 3 * * *"
    app.tasks[PRUNE_TASK](timestamp=0)
    assert calls == [1]


@pytest.mark.model
def test_restricting_or_deleting_a_document_removes_its_text_from_traces(
        pool: ConnectionPool, embedder: Any, tmp_path: Path) -> None:
    from store.ingest import ingest_paths

    docs = tmp_path / "docs"
    docs.mkdir()
    bonus = docs / "bonus.md"
    bonus.write_text("# Bonus plan\n\nThe 2027 bonus pool is 7.5% of payroll.\n", "utf-8")
    (docs / "canteen.md").write_text("# Canteen\n\nLunch is served from noon.\n", "utf-8")
    ingest_paths(pool, "hr", [docs], embedder=embedder, acl=["public"])
    keys = {}
    with pool.connection() as conn:
        for row in conn.execute("SELECT doc_key, title FROM documents").fetchall():
            keys[row[1]] = row[0]
        for tid, title in (("t-bonus", "Bonus plan"), ("t-canteen", "Canteen")):
            save_trace(conn, {"trace_id": tid, "thread_id": "x", "kb": "hr", "question": "q",
                              "answer": f"quoted from {title}",
                              "citations": [{"n": 1, "doc_id": keys[title], "title": title}],
                              "steps": [{"node": "generate", "output": {"text": "quote"}}]})

    ingest_paths(pool, "hr", [bonus], embedder=embedder, acl=["group:hr"])
    with pool.connection() as conn:
        bonus_trace, canteen_trace = get_trace(conn, "t-bonus"), get_trace(conn, "t-canteen")
    assert bonus_trace is not None
    assert canteen_trace is not None
    assert bonus_trace["answer"] == SCRUBBED
    assert bonus_trace["steps"] == []
    assert canteen_trace["answer"] == "quoted from Canteen"

    (docs / "canteen.md").unlink()
    ingest_paths(pool, "hr", [docs], embedder=embedder, prune=True)
    with pool.connection() as conn:
        canteen_trace = get_trace(conn, "t-canteen")
    assert canteen_trace is not None
    assert canteen_trace["answer"] == SCRUBBED


@pytest.mark.model
def test_reindex_after_a_source_file_is_deleted_scrubs_traces_that_cited_it(
        pool: ConnectionPool, embedder: Any, tmp_path: Path) -> None:
    from store.ingest import ingest_paths
    from store.reindex import reindex

    docs = tmp_path / "wiki"
    docs.mkdir()
    (docs / "vpn.md").write_text("# VPN\n\nThe VPN gateway is vpn-gw.corp.example.\n", "utf-8")
    (docs / "wifi.md").write_text("# Wi-Fi\n\nThe guest network is Corp-Guest.\n", "utf-8")
    ingest_paths(pool, "it", [docs], embedder=embedder)
    with pool.connection() as conn:
        keys = dict(conn.execute("SELECT title, doc_key FROM documents").fetchall())
        for tid, title in (("t-vpn", "VPN"), ("t-wifi", "Wi-Fi")):
            save_trace(conn, {"trace_id": tid, "thread_id": "x", "kb": "it", "question": "q",
                              "answer": f"from {title}",
                              "citations": [{"n": 1, "doc_id": keys[title], "title": title}]})
    (docs / "vpn.md").unlink()
    reindex(pool, "it", embedder=embedder)
    with pool.connection() as conn:
        vpn, wifi = get_trace(conn, "t-vpn"), get_trace(conn, "t-wifi")
    assert vpn is not None
    assert wifi is not None
    assert vpn["answer"] == SCRUBBED
    assert wifi["answer"] == "from Wi-Fi"
