"""Smaller hardening of the Slack surface: message edits are never parsed for links or
mentions, sources show titles (never a server path), and a turn whose failure path meets
a database error still ends up journaled as failed."""

from __future__ import annotations

import pytest
from psycopg_pool import ConnectionPool

from tests.scenario.agents import ExplodingAgent
from tests.scenario.conftest import PUBLIC, Bot, _Factory, block_text

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]


def test_edits_are_not_parsed_and_sources_show_titles_not_paths(bot: Bot) -> None:
    event = bot.sender.mention(PUBLIC, "<@UBOT> What are the steps to ship a release "
                                       "to production?")
    bot.sender.event(event)
    turn = bot.wait_done(PUBLIC, event["ts"])
    updates = bot.fake.ok_calls("chat.update")
    assert updates
    assert {c.body.get("parse") for c in updates} == {"none"}
    answer = block_text(bot.shown(PUBLIC, turn) or {})
    assert "] Production Deploy Procedure" in answer
    assert ".md" not in answer


def _fail_next_updates_to_failed(pool: ConnectionPool, times: int) -> None:
    """A real database error on the next ``times`` writes that mark a turn failed, as a
    failover or a restart would give."""
    with pool.connection() as conn:
        conn.execute(f"CREATE SEQUENCE fail_budget MAXVALUE {times} NO CYCLE")
        conn.execute("""
            CREATE FUNCTION fail_mark() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.state = 'failed' THEN
                    BEGIN
                        PERFORM nextval('fail_budget');
                    EXCEPTION WHEN sequence_generator_limit_exceeded THEN
                        RETURN NEW;
                    END;
                    RAISE EXCEPTION 'database briefly unavailable'
                        USING ERRCODE = 'admin_shutdown';
                END IF;
                RETURN NEW;
            END $$""")
        conn.execute("CREATE TRIGGER fail_mark BEFORE UPDATE ON turns "
                     "FOR EACH ROW EXECUTE FUNCTION fail_mark()")


def test_database_error_while_failing_a_turn_still_marks_it_failed(
        make_bot: _Factory, scenario_pool: ConnectionPool) -> None:
    bot = make_bot(ExplodingAgent())
    _fail_next_updates_to_failed(scenario_pool, times=3)
    event = bot.sender.mention(PUBLIC, "<@UBOT> Who signs off a hotfix?")
    bot.sender.event(event)
    turn = bot.wait_done(PUBLIC, event["ts"], timeout=30)
    assert turn.state == "failed"
    apology = block_text(bot.shown(PUBLIC, turn) or {})
    assert turn.trace_id in apology
    assert ExplodingAgent.SECRET not in apology
