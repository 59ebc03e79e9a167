"""The conversation-core migration upgrades a running deployment in place: a database
filled by the schema before it (Slack-named tables) loses nothing, and a thread answered
before the upgrade still gets its follow-up answered, with its memory, after it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from agent.api import Question, build_agent
from store import conversations as journal
from store import migrations
from store.types import SourceDocument
from tests.databases import cloned_database

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "upgrade-test"
OLD = migrations.CONVERSATION_TABLES - 1
DOCS = [
    SourceDocument(doc_key="bikes", source="kb/bikes.md", title="Bike shed rules",
                   fmt="markdown", text=(
                       "# Bike shed rules\n\nThe bike shed behind building C opens at 7:00. "
                       "E-bike batteries must be charged in the charging cabinet, never at "
                       "desks.\n\n## Lost keys\n\nA lost shed key costs 20 euros at the "
                       "front desk.\n")),
    SourceDocument(doc_key="canteen", source="kb/canteen.md", title="Canteen hours",
                   fmt="markdown", text="# Canteen hours\n\nThe canteen serves lunch from "
                                        "11:30 to 14:00.\n"),
]


@pytest.fixture
def old_db(pg_admin_url: str) -> Iterator[str]:
    """A database at the schema version before the conversation core."""
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE ragbot_upgrade_template_tmp")
    try:
        with cloned_database(pg_admin_url, "ragbot_upgrade_template_tmp") as url:
            with psycopg.connect(url, autocommit=True) as conn:
                assert migrations.setup(conn, until=OLD) == OLD
            yield url
    finally:
        with psycopg.connect(pg_admin_url, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS ragbot_upgrade_template_tmp WITH (FORCE)")


def _fill_as_the_old_slack_code_did(conn: psycopg.Connection[Any], trace_id: str) -> None:
    key = "slack:T1:C1:100.1"
    conn.execute("INSERT INTO slack_events (event_id) VALUES ('Ev100'), ('Ev200')")
    conn.execute(
        "INSERT INTO slack_turns (team, channel, message_ts, thread_ts, thread_key, user_id, "
        "kind, text, kb, event_id, state, owner, status_ts, trace_id) VALUES "
        "('T1', 'C1', '100.1', '100.1', %s, 'U1', 'ask', 'When does the bike shed open?', "
        " %s, 'Ev100', 'done', 'old-host:1', '100.2', %s),"
        "('T1', 'C1', '200.1', '200.1', 'slack:T1:C1:200.1', 'U2', 'ask', "
        " 'How much is a lost shed key?', %s, 'Ev200', 'running', 'old-host:1', '200.2', 't2')",
        [key, KB, trace_id, KB])
    conn.execute("INSERT INTO slack_workers (instance_id, heartbeat_at) "
                 "VALUES ('old-host:1', now() - interval '1 hour')")
    conn.execute("INSERT INTO slack_threads (channel, thread_ts, team, thread_key, kb) VALUES "
                 "('C1', '100.1', 'T1', %s, %s), ('C1', '200.1', 'T1', 'slack:T1:C1:200.1', %s)",
                 [key, KB, KB])
    conn.execute("INSERT INTO slack_bot_messages (channel, ts, trace_id, thread_key, turn_id, kb) "
                 "SELECT 'C1', '100.2', %s, %s, id, %s FROM slack_turns WHERE message_ts = '100.1'",
                 [trace_id, key, KB])


def test_upgrade_keeps_every_row_and_old_threads_get_follow_ups(old_db: str, embedder) -> None:  # type: ignore[no-untyped-def]
    from store.db import ensure_vector_index, open_pool
    from store.ingest import ingest_documents

    with psycopg.connect(old_db, autocommit=True) as conn:
        ensure_vector_index(conn, 384)
    pool = open_pool(old_db, max_size=4, migrate=False)
    try:
        ingest_documents(pool, KB, list(DOCS), embedder=embedder)
        agent = build_agent(pool, embedder)
        first = agent.ask(Question(text="When does the bike shed open?",
                                   thread_id="slack:T1:C1:100.1", kb=KB))
        agent.close()
        with pool.connection() as conn:
            _fill_as_the_old_slack_code_did(conn, first.trace_id)

        with psycopg.connect(old_db, autocommit=True) as conn:
            assert migrations.setup(conn) == len(migrations.MIGRATIONS) - 1

        with pool.connection() as conn:
            # nothing lost: deliveries still deduplicate, the message is still claimed
            assert not journal.record_delivery(conn, "slack", "Ev100")
            assert journal.record_delivery(conn, "slack", "Ev300")
            (done,) = journal.turns_for_message(conn, "slack", "C1", "100.1")
            assert (done.state, done.workspace, done.thread, done.asker, done.kbs,
                    done.status_id, done.trace_id) == (
                "done", "T1", "100.1", "U1", (KB,), "100.2", first.trace_id)
            message = journal.trace_for_message(conn, "slack", "C1", "100.2")
            assert message is not None
            assert (message.trace_id, message.turn_id, message.kbs) == (
                first.trace_id, done.id, (KB,))
            # the turn the old process left running is an orphan of the new one
            (orphan,) = journal.claim_orphans(conn, "new-host:1", stale_after_s=30,
                                              surfaces=("slack",))
            assert (orphan.text, orphan.attempts) == ("How much is a lost shed key?", 2)
            # the old thread is one the bot answered: a reply there is a follow-up
            assert journal.is_answered_thread(conn, "slack", "C1", "100.1")
            follow_up = journal.claim_turn(conn, journal.TurnDraft(
                surface="slack", workspace="T1", conversation="C1", message_id="100.5",
                thread="100.1", thread_key="slack:T1:C1:100.1", asker="U1", kind="ask",
                text="What if I lose the key?", kbs=(KB,), delivery_id="Ev500"),
                "new-host:1")
            assert follow_up is not None
            assert journal.claim_turn(conn, journal.TurnDraft(
                surface="slack", workspace="T1", conversation="C1", message_id="100.1",
                thread="100.1", thread_key="slack:T1:C1:100.1", asker="U1", kind="ask",
                text="When does the bike shed open?", kbs=(KB,)), "new-host:1") is None

        # the follow-up is answered with the thread's memory from before the upgrade
        agent = build_agent(pool, embedder)
        started = time.monotonic()
        second = agent.ask(Question(text=follow_up.text, thread_id=follow_up.thread_key,
                                    kb=follow_up.kb))
        agent.close()
        assert time.monotonic() - started < 60
        assert second.rewritten_query is not None
        assert "bike" in second.rewritten_query.lower()
        assert [c.doc_id for c in second.citations][:1] == ["bikes"]
    finally:
        pool.close()
