"""The Slack surface's durable state: event dedup, the turn journal, answered threads, and
which bot message carries which trace.

Everything a replica needs to behave correctly next to other replicas and across restarts
lives here, in Postgres:

- ``slack_events``: one row per Events API ``event_id``; a retry (``X-Slack-Retry-Num``) of
  an event already seen inserts nothing.
- ``slack_turns``: the journal. One row per question message, unique on (channel, message
  ts), so the ``app_mention`` + ``message`` double delivery of one @mention claims one turn.
  A turn is ``accepted`` before Slack gets its ack, ``running`` while answered, then
  ``done``/``failed``. Rows left ``accepted``/``running`` by a dead process are claimed by
  a live one (``claim_orphans``) and re-run or reported.
- ``slack_workers``: a heartbeat per process, which is how "dead" is decided.
- ``slack_threads``: threads the bot answered; later replies there are follow-ups.
- ``slack_bot_messages``: bot message ts -> trace id, for reactions on answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import psycopg
from psycopg.rows import dict_row

TurnKind = Literal["ask", "resume", "help"]
TurnState = Literal["accepted", "running", "done", "failed"]


@dataclass(frozen=True)
class TurnDraft:
    """A question message about to be claimed."""

    team: str
    channel: str
    message_ts: str
    thread_ts: str
    thread_key: str
    user_id: str
    kind: TurnKind
    text: str
    kb: str
    truncated: bool = False
    event_id: str | None = None


@dataclass(frozen=True)
class Turn:
    """A journal row."""

    id: int
    team: str
    channel: str
    message_ts: str
    thread_ts: str
    thread_key: str
    user_id: str
    kind: TurnKind
    text: str
    truncated: bool
    kb: str
    event_id: str | None
    state: TurnState
    owner: str
    attempts: int
    status_ts: str | None
    trace_id: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class BotMessage:
    channel: str
    ts: str
    trace_id: str
    thread_key: str
    turn_id: int | None
    kb: str | None


_TURN_COLUMNS = ("id, team, channel, message_ts, thread_ts, thread_key, user_id, kind, text, "
                 "truncated, kb, event_id, state, owner, attempts, status_ts, trace_id, "
                 "created_at, updated_at")


def _turn(row: dict[str, Any]) -> Turn:
    return Turn(**row)


# ---------------------------------------------------------------- dedup and journal

# Both writes below happen before Slack gets its ack, so they must be fast: one statement
# each, committed without waiting for the WAL flush (``synchronous_commit`` off for that
# transaction only). A bot process that dies loses nothing: the row is committed in
# Postgres. Only a crash of Postgres itself within the flush delay (a fraction of a
# second) could forget a claim, and then Slack's retry of the unacked-in-time event, or
# the asker, brings it back.
_ASYNC_COMMIT = "SELECT set_config('synchronous_commit', 'off', true) AS off"


def record_event(conn: psycopg.Connection, event_id: str) -> bool:
    """Remember an Events API delivery; False when ``event_id`` was seen before."""
    row = conn.execute(
        f"""
        WITH cfg AS ({_ASYNC_COMMIT})
        INSERT INTO slack_events (event_id) SELECT %s FROM cfg
        ON CONFLICT DO NOTHING RETURNING 1
        """,
        [event_id],
    ).fetchone()
    return row is not None


def claim_turn(conn: psycopg.Connection, draft: TurnDraft, owner: str) -> Turn | None:
    """Journal a question as ``accepted`` by ``owner``, record its event id and mark its
    thread as answered by the bot (help turns excepted), in one statement. None when the
    event id or the message was seen before (a retry, or the same message through another
    event, here or on another replica).

    One statement because this runs before Slack gets its ack: one round trip, atomic."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            f"""
            WITH cfg AS ({_ASYNC_COMMIT}), event AS (
                INSERT INTO slack_events (event_id) SELECT %(event_id)s::text FROM cfg
                 WHERE %(event_id)s::text IS NOT NULL
                ON CONFLICT DO NOTHING RETURNING event_id
            ), turn AS (
                INSERT INTO slack_turns (team, channel, message_ts, thread_ts, thread_key,
                                         user_id, kind, text, truncated, kb, event_id, owner)
                SELECT %(team)s, %(channel)s, %(ts)s, %(thread_ts)s, %(key)s, %(user)s,
                       %(kind)s, %(text)s, %(truncated)s, %(kb)s, %(event_id)s, %(owner)s
                  FROM cfg
                 WHERE %(event_id)s::text IS NULL OR EXISTS (SELECT 1 FROM event)
                ON CONFLICT (channel, message_ts) DO NOTHING
                RETURNING {_TURN_COLUMNS}
            ), thread AS (
                INSERT INTO slack_threads (channel, thread_ts, team, thread_key, kb)
                SELECT channel, thread_ts, team, thread_key, kb FROM turn WHERE kind <> 'help'
                ON CONFLICT (channel, thread_ts) DO UPDATE SET last_turn_at = now()
            )
            SELECT * FROM turn
            """,
            {"team": draft.team, "channel": draft.channel, "ts": draft.message_ts,
             "thread_ts": draft.thread_ts, "key": draft.thread_key, "user": draft.user_id,
             "kind": draft.kind, "text": draft.text, "truncated": draft.truncated,
             "kb": draft.kb, "event_id": draft.event_id, "owner": owner},
        ).fetchone()
    return _turn(row) if row else None


def mark_running(conn: psycopg.Connection, turn_id: int, *, status_ts: str | None,
                 trace_id: str) -> None:
    conn.execute(
        "UPDATE slack_turns SET state = 'running', status_ts = coalesce(%s, status_ts), "
        "trace_id = %s, updated_at = now() WHERE id = %s",
        [status_ts, trace_id, turn_id],
    )


def finish_turn(conn: psycopg.Connection, turn_id: int, state: TurnState,
                trace_id: str | None) -> None:
    """Close a turn as ``done`` or ``failed``."""
    conn.execute(
        "UPDATE slack_turns SET state = %s, trace_id = coalesce(%s, trace_id), "
        "updated_at = now() WHERE id = %s",
        [state, trace_id, turn_id],
    )


def get_turn(conn: psycopg.Connection, turn_id: int) -> Turn | None:
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"SELECT {_TURN_COLUMNS} FROM slack_turns WHERE id = %s",
                          [turn_id]).fetchone()
    return _turn(row) if row else None


def turns_for_message(conn: psycopg.Connection, channel: str, message_ts: str) -> list[Turn]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {_TURN_COLUMNS} FROM slack_turns WHERE channel = %s AND message_ts = %s",
            [channel, message_ts]).fetchall()
    return [_turn(r) for r in rows]


# ---------------------------------------------------------------- workers and recovery

def heartbeat(conn: psycopg.Connection, instance_id: str) -> None:
    """Say this process is alive; turns it owns are not orphans while it beats."""
    conn.execute(
        "INSERT INTO slack_workers (instance_id) VALUES (%s) ON CONFLICT (instance_id) "
        "DO UPDATE SET heartbeat_at = now()",
        [instance_id],
    )


def retire(conn: psycopg.Connection, instance_id: str) -> None:
    """A clean shutdown: the process's unfinished turns become orphans at once."""
    conn.execute("DELETE FROM slack_workers WHERE instance_id = %s", [instance_id])


def claim_orphans(conn: psycopg.Connection, instance_id: str, *, stale_after_s: float,
                  limit: int = 50) -> list[Turn]:
    """Take over unfinished turns whose owner stopped beating ``stale_after_s`` ago.

    ``SKIP LOCKED`` lets several replicas sweep at once without taking the same turn twice;
    ``attempts`` counts how many processes have started the turn.
    """
    with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"""
            UPDATE slack_turns SET owner = %(me)s, attempts = attempts + 1, updated_at = now()
             WHERE id IN (
                SELECT t.id FROM slack_turns t
                 WHERE t.state IN ('accepted', 'running') AND t.owner <> %(me)s
                   AND NOT EXISTS (
                       SELECT 1 FROM slack_workers w
                        WHERE w.instance_id = t.owner
                          AND w.heartbeat_at > now() - make_interval(secs => %(stale)s))
                 ORDER BY t.id
                 LIMIT %(limit)s
                 FOR UPDATE SKIP LOCKED)
            RETURNING {_TURN_COLUMNS}
            """,
            {"me": instance_id, "stale": stale_after_s, "limit": limit},
        ).fetchall()
    return [_turn(r) for r in rows]


def count_attempt(conn: psycopg.Connection, turn_id: int) -> Turn | None:
    """Count one more start of an unfinished turn whose worker process died under it (the
    owner lives on, so ``claim_orphans`` would never see it). None when it is finished."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            f"""
            UPDATE slack_turns SET attempts = attempts + 1, updated_at = now()
             WHERE id = %s AND state IN ('accepted', 'running')
            RETURNING {_TURN_COLUMNS}
            """,
            [turn_id],
        ).fetchone()
    return _turn(row) if row else None


def prune(conn: psycopg.Connection, *, keep_days: float = 7.0) -> int:
    """Forget event ids and finished turns older than ``keep_days`` (Slack retries within
    minutes, so a few days is ample). Returns the number of event rows removed."""
    cur = conn.execute(
        "DELETE FROM slack_events WHERE received_at < now() - %s * interval '1 day'",
        [keep_days])
    conn.execute(
        "DELETE FROM slack_workers WHERE heartbeat_at < now() - %s * interval '1 day'",
        [keep_days])
    return cur.rowcount


# ---------------------------------------------------------------- threads and messages

def register_thread(conn: psycopg.Connection, *, team: str, channel: str, thread_ts: str,
                    thread_key: str, kb: str) -> None:
    """Mark a thread as one the bot answers; replies there need no @mention."""
    conn.execute(
        """
        INSERT INTO slack_threads (channel, thread_ts, team, thread_key, kb)
        VALUES (%s, %s, %s, %s, %s)
        ON CONFLICT (channel, thread_ts) DO UPDATE SET last_turn_at = now()
        """,
        [channel, thread_ts, team, thread_key, kb],
    )


def is_answered_thread(conn: psycopg.Connection, channel: str, thread_ts: str) -> bool:
    row = conn.execute("SELECT 1 FROM slack_threads WHERE channel = %s AND thread_ts = %s",
                       [channel, thread_ts]).fetchone()
    return row is not None


def record_bot_message(conn: psycopg.Connection, *, channel: str, ts: str, trace_id: str,
                       thread_key: str, turn_id: int | None, kb: str | None) -> None:
    """Remember that the bot message at (channel, ts) shows the turn with ``trace_id``."""
    conn.execute(
        """
        INSERT INTO slack_bot_messages (channel, ts, trace_id, thread_key, turn_id, kb)
        VALUES (%s, %s, %s, %s, %s, %s)
        ON CONFLICT (channel, ts) DO UPDATE
           SET trace_id = EXCLUDED.trace_id, turn_id = EXCLUDED.turn_id, kb = EXCLUDED.kb
        """,
        [channel, ts, trace_id, thread_key, turn_id, kb],
    )


def trace_for_message(conn: psycopg.Connection, channel: str, ts: str) -> BotMessage | None:
    """The bot message at (channel, ts) and its trace id, or None if it is not an answer."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            "SELECT channel, ts, trace_id, thread_key, turn_id, kb FROM slack_bot_messages "
            "WHERE channel = %s AND ts = %s", [channel, ts]).fetchone()
    return BotMessage(**row) if row else None
