"""Teams moves onto the conversation core in place: a database the first Teams adapter
filled (its teams_* tables) loses nothing. Its claimed activities stay claimed, its open
turn becomes an orphan the core takes over, its answered reply chain still takes
follow-ups under the same thread key, its 1:1 chat stays in the same session, and a vote
on its answer still finds the trace."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from store import conversations as journal
from store import migrations
from tests.databases import cloned_database

pytestmark = [pytest.mark.db]

OLD = migrations.TEAMS_ON_CORE - 1
TENANT = "tenant-home"
CHANNEL = "19:ops@thread.tacv2"
CHAIN = f"{CHANNEL};messageid=1700000000100"
CHAT = "a:carol-1on1"
SERVICE = "https://smba.example.test/teams/"


@pytest.fixture
def old_db(pg_admin_url: str) -> Iterator[str]:
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE ragbot_teams_upgrade_tmp")
    try:
        with cloned_database(pg_admin_url, "ragbot_teams_upgrade_tmp") as url:
            with psycopg.connect(url, autocommit=True) as conn:
                assert migrations.setup(conn, until=OLD) == OLD
            yield url
    finally:
        with psycopg.connect(pg_admin_url, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS ragbot_teams_upgrade_tmp WITH (FORCE)")


def _fill_as_the_first_teams_adapter_did(conn: psycopg.Connection[Any]) -> None:
    conn.execute("INSERT INTO teams_activities (activity_id) VALUES "
                 "('1700000000100'), ('1700000000200'), ('1700000000300')")
    conn.execute(
        "INSERT INTO teams_turns (activity_id, kind, tenant, conversation_id, service_url, "
        "thread_key, chat_type, user_id, principals, asker_principals, text, kb, state, "
        "owner, trace_id) VALUES "
        "('1700000000100', 'ask', %(t)s, %(chain)s, %(s)s, %(chain_key)s, 'channel', "
        " 'aad-dan', '{public,channel:19:ops@thread.tacv2}', '{public,user:aad-dan}', "
        " 'Where is the staging runbook?', 'ops', 'done', 'old-host:1', 'trace-chain'),"
        "('1700000000200', 'ask', %(t)s, %(chat)s, %(s)s, %(chat_key)s, 'personal', "
        " 'aad-carol', '{public,user:aad-carol}', '{public,user:aad-carol}', "
        " 'How do I request a laptop?', 'ops', 'running', 'old-host:1', 'trace-open')",
        {"t": TENANT, "chain": CHAIN, "s": SERVICE, "chain_key": f"teams:{TENANT}:{CHAIN}",
         "chat": CHAT, "chat_key": f"teams:{TENANT}:{CHAT}:t2"})
    conn.execute("INSERT INTO teams_threads (thread_key) VALUES (%s)",
                 [f"teams:{TENANT}:{CHAIN}"])
    conn.execute("INSERT INTO teams_chats (chat_key, thread_no) VALUES (%s, 2)",
                 [f"teams:{TENANT}:{CHAT}"])
    conn.execute("INSERT INTO teams_bot_messages (activity_id, conversation_id, trace_id, "
                 "thread_key, kb) VALUES ('act-9', %s, 'trace-chain', %s, 'ops')",
                 [CHAIN, f"teams:{TENANT}:{CHAIN}"])


def test_teams_rows_move_into_the_core_tables(old_db: str) -> None:
    with psycopg.connect(old_db, autocommit=True) as conn:
        _fill_as_the_first_teams_adapter_did(conn)
        migrations.setup(conn)
        left = conn.execute("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'teams_%'"
                            ).fetchone()
        assert left == (0,)
        # a redelivery of a claimed activity claims nothing
        assert not journal.record_delivery(conn, "teams", "1700000000300")
        # the answered chain: same conversation/thread split, same key, a follow-up there
        assert journal.is_answered_thread(conn, "teams", CHANNEL, "1700000000100")
        key = conn.execute("SELECT thread_key FROM threads WHERE surface = 'teams' AND "
                           "conversation = %s", [CHANNEL]).fetchone()
        assert key == (f"teams:{TENANT}:{CHAIN}",)
        # the 1:1 chat stays in its session t2 (the quiet gap has not passed)
        assert journal.chat_session(conn, "teams", CHAT, gap_min=30,
                                    start_new=False) == ("t2", False)
        assert journal.chat_session(conn, "teams", CHAT, gap_min=30,
                                    start_new=True) == ("t3", True)
        # a vote on the old answer finds its trace
        answer = journal.trace_for_message(conn, "teams", CHANNEL, "act-9")
        assert answer is not None
        assert answer.trace_id == "trace-chain"
        assert answer.kbs == ("ops",)
        # the turn the dead process left running is an orphan the core takes over, with
        # the route and the access class it was accepted with
        orphans = journal.claim_orphans(conn, "new-host:1", stale_after_s=0,
                                        surfaces=("teams",))
        assert [t.text for t in orphans] == ["How do I request a laptop?"]
        turn = orphans[0]
        assert (turn.conversation, turn.thread, turn.thread_key) == (
            CHAT, "t2", f"teams:{TENANT}:{CHAT}:t2")
        assert turn.address["serviceUrl"] == SERVICE
        assert turn.address["kind"] == "direct"
        assert turn.address["chat"] == "personal"
        done = conn.execute("SELECT conversation, thread, address->>'kind' FROM turns "
                            "WHERE message_id = '1700000000100'").fetchone()
        assert done == (CHANNEL, "1700000000100", "private")
