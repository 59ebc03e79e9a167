"""The conversation core's durable state, for every chat surface: delivery dedup, the turn
journal, worker heartbeats, answered threads, and which bot message carries which trace.

Everything a replica needs to behave correctly next to other replicas and across restarts
lives here, in Postgres. Rows are keyed by ``surface`` plus the surface's own ids
(conversation, message, thread):

- ``deliveries``: one row per delivery id (Slack's ``event_id``, a Teams activity id); a
  redelivery of one already seen inserts nothing.
- ``turns``: the journal. One row per question message, unique on (surface, conversation,
  message id), so two deliveries of one message (Slack's ``app_mention`` + ``message``)
  claim one turn. A turn is ``accepted`` before the surface gets its ack, ``running``
  while answered, then ``done``/``failed``. Rows left ``accepted``/``running`` by a dead
  process are claimed by a live one (``claim_orphans``) and re-run or reported.
- ``workers``: a heartbeat per process, which is how "dead" is decided.
- ``threads``: threads the bot answered; later replies there are follow-ups.
- ``bot_messages``: the bot's message id -> trace id, for votes on answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

TurnKind = Literal["ask", "resume", "help"]
TurnState = Literal["accepted", "running", "done", "failed"]


@dataclass(frozen=True)
class TurnDraft:
    """A question message about to be claimed."""

    surface: str
    workspace: str
    conversation: str
    message_id: str
    thread: str
    thread_key: str
    asker: str
    kind: TurnKind
    text: str
    kbs: tuple[str, ...]
    truncated: bool = False
    delivery_id: str | None = None
    address: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Turn:
    """A journal row."""

    id: int
    surface: str
    workspace: str
    conversation: str
    message_id: str
    thread: str
    thread_key: str
    asker: str
    kind: TurnKind
    text: str
    truncated: bool
    kbs: tuple[str, ...]
    delivery_id: str | None
    state: TurnState
    owner: str
    attempts: int
    status_id: str | None
    trace_id: str | None
    address: Mapping[str, str]
    created_at: datetime
    updated_at: datetime

    @property
    def kb(self) -> str:
        """The turn's knowledge bases as one key (``hr+it``; ``store.kbset``), which the
        agent resolves and routes among."""
        from store.kbset import kb_set_key

        return kb_set_key(self.kbs)


@dataclass(frozen=True)
class BotMessage:
    surface: str
    conversation: str
    message_id: str
    trace_id: str
    thread_key: str
    turn_id: int | None
    kbs: tuple[str, ...]


_TURN_COLUMNS = ("id, surface, workspace, conversation, message_id, thread, thread_key, asker, "
                 "kind, text, truncated, kbs, delivery_id, state, owner, attempts, status_id, "
                 "trace_id, address, created_at, updated_at")


def _turn(row: dict[str, Any]) -> Turn:
    return Turn(**{**row, "kbs": tuple(row["kbs"]), "address": dict(row["address"] or {})})


# ---------------------------------------------------------------- dedup and journal

# Both writes below happen before Slack gets its ack, so they must be fast: one statement
# each, committed without waiting for the WAL flush (``synchronous_commit`` off for that
# transaction only). A bot process that dies loses nothing: the row is committed in
# Postgres. Only a crash of Postgres itself within the flush delay (a fraction of a
# second) could forget a claim, and then Slack's retry of the unacked-in-time event, or
# the asker, brings it back.
_ASYNC_COMMIT = "SELECT set_config('synchronous_commit', 'off', true) AS off"


def record_delivery(conn: psycopg.Connection, surface: str, delivery_id: str) -> bool:
    """Remember a delivery of ``surface``; False when ``delivery_id`` was seen before."""
    row = conn.execute(
        f"""
        WITH cfg AS ({_ASYNC_COMMIT})
        INSERT INTO deliveries (surface, delivery_id) SELECT %s, %s FROM cfg
        ON CONFLICT DO NOTHING RETURNING 1
        """,
        [surface, delivery_id],
    ).fetchone()
    return row is not None


def claim_turn(conn: psycopg.Connection, draft: TurnDraft, owner: str) -> Turn | None:
    """Journal a question as ``accepted`` by ``owner``, record its delivery id and mark its
    thread as answered by the bot (help turns excepted), in one statement. None when the
    delivery or the message was seen before (a retry, or the same message through another
    event, here or on another replica).

    One statement because this runs before the surface gets its ack: one round trip,
    atomic."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            f"""
            WITH cfg AS ({_ASYNC_COMMIT}), delivery AS (
                INSERT INTO deliveries (surface, delivery_id)
                SELECT %(surface)s, %(delivery_id)s::text FROM cfg
                 WHERE %(delivery_id)s::text IS NOT NULL
                ON CONFLICT DO NOTHING RETURNING delivery_id
            ), turn AS (
                INSERT INTO turns (surface, workspace, conversation, message_id, thread,
                                   thread_key, asker, kind, text, truncated, kbs, delivery_id,
                                   owner, address)
                SELECT %(surface)s, %(workspace)s, %(conversation)s, %(message_id)s,
                       %(thread)s, %(key)s, %(asker)s, %(kind)s, %(text)s, %(truncated)s,
                       %(kbs)s, %(delivery_id)s, %(owner)s, %(address)s
                  FROM cfg
                 WHERE %(delivery_id)s::text IS NULL OR EXISTS (SELECT 1 FROM delivery)
                ON CONFLICT (surface, conversation, message_id) DO NOTHING
                RETURNING {_TURN_COLUMNS}
            ), thread AS (
                INSERT INTO threads (surface, conversation, thread, workspace, thread_key, kbs)
                SELECT surface, conversation, thread, workspace, thread_key, kbs
                  FROM turn WHERE kind <> 'help'
                ON CONFLICT (surface, conversation, thread) DO UPDATE SET last_turn_at = now()
            )
            SELECT * FROM turn
            """,
            {"surface": draft.surface, "workspace": draft.workspace,
             "conversation": draft.conversation, "message_id": draft.message_id,
             "thread": draft.thread, "key": draft.thread_key, "asker": draft.asker,
             "kind": draft.kind, "text": draft.text, "truncated": draft.truncated,
             "kbs": list(draft.kbs), "delivery_id": draft.delivery_id, "owner": owner,
             "address": Jsonb(dict(draft.address))},
        ).fetchone()
    return _turn(row) if row else None


def mark_running(conn: psycopg.Connection, turn_id: int, *, status_id: str | None,
                 trace_id: str) -> None:
    """The turn's status message is up (``status_id``) and its agent run is queued."""
    conn.execute(
        "UPDATE turns SET state = 'running', status_id = coalesce(%s, status_id), "
        "trace_id = %s, updated_at = now() WHERE id = %s",
        [status_id, trace_id, turn_id],
    )


def finish_turn(conn: psycopg.Connection, turn_id: int, state: TurnState,
                trace_id: str | None) -> None:
    """Close a turn as ``done`` or ``failed``."""
    conn.execute(
        "UPDATE turns SET state = %s, trace_id = coalesce(%s, trace_id), "
        "updated_at = now() WHERE id = %s",
        [state, trace_id, turn_id],
    )


def get_turn(conn: psycopg.Connection, turn_id: int) -> Turn | None:
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"SELECT {_TURN_COLUMNS} FROM turns WHERE id = %s",
                          [turn_id]).fetchone()
    return _turn(row) if row else None


def turns_for_message(conn: psycopg.Connection, surface: str, conversation: str,
                      message_id: str) -> list[Turn]:
    """The journal rows of one question message (at most one, by the unique key)."""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE surface = %s AND conversation = %s "
            "AND message_id = %s", [surface, conversation, message_id]).fetchall()
    return [_turn(r) for r in rows]


# ---------------------------------------------------------------- workers and recovery

def heartbeat(conn: psycopg.Connection, instance_id: str) -> None:
    """Say this process is alive; turns it owns are not orphans while it beats."""
    conn.execute(
        "INSERT INTO workers (instance_id) VALUES (%s) ON CONFLICT (instance_id) "
        "DO UPDATE SET heartbeat_at = now()",
        [instance_id],
    )


def retire(conn: psycopg.Connection, instance_id: str) -> None:
    """A clean shutdown: the process's unfinished turns become orphans at once."""
    conn.execute("DELETE FROM workers WHERE instance_id = %s", [instance_id])


def claim_orphans(conn: psycopg.Connection, instance_id: str, *, stale_after_s: float,
                  surfaces: tuple[str, ...], limit: int = 50) -> list[Turn]:
    """Take over unfinished turns whose owner stopped beating ``stale_after_s`` ago.

    Only turns of ``surfaces`` (those this process can answer on) are taken.
    ``SKIP LOCKED`` lets several replicas sweep at once without taking the same turn twice;
    ``attempts`` counts how many processes have started the turn.
    """
    with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"""
            UPDATE turns SET owner = %(me)s, attempts = attempts + 1, updated_at = now()
             WHERE id IN (
                SELECT t.id FROM turns t
                 WHERE t.state IN ('accepted', 'running') AND t.owner <> %(me)s
                   AND t.surface = ANY(%(surfaces)s)
                   AND NOT EXISTS (
                       SELECT 1 FROM workers w
                        WHERE w.instance_id = t.owner
                          AND w.heartbeat_at > now() - make_interval(secs => %(stale)s))
                 ORDER BY t.id
                 LIMIT %(limit)s
                 FOR UPDATE SKIP LOCKED)
            RETURNING {_TURN_COLUMNS}
            """,
            {"me": instance_id, "stale": stale_after_s, "limit": limit,
             "surfaces": list(surfaces)},
        ).fetchall()
    return [_turn(r) for r in rows]


def count_attempt(conn: psycopg.Connection, turn_id: int) -> Turn | None:
    """Count one more start of an unfinished turn whose worker process died under it (the
    owner lives on, so ``claim_orphans`` would never see it). None when it is finished."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            f"""
            UPDATE turns SET attempts = attempts + 1, updated_at = now()
             WHERE id = %s AND state IN ('accepted', 'running')
            RETURNING {_TURN_COLUMNS}
            """,
            [turn_id],
        ).fetchone()
    return _turn(row) if row else None


def prune(conn: psycopg.Connection, *, keep_days: float = 7.0) -> int:
    """Forget delivery ids and dead workers older than ``keep_days`` (surfaces redeliver
    within minutes, so a few days is ample). Returns the number of delivery rows removed."""
    cur = conn.execute(
        "DELETE FROM deliveries WHERE received_at < now() - %s * interval '1 day'",
        [keep_days])
    conn.execute(
        "DELETE FROM workers WHERE heartbeat_at < now() - %s * interval '1 day'",
        [keep_days])
    return cur.rowcount


# ---------------------------------------------------------------- threads and messages

def is_answered_thread(conn: psycopg.Connection, surface: str, conversation: str,
                       thread: str) -> bool:
    """Did the bot answer in this thread (so a reply there is a follow-up)?"""
    row = conn.execute("SELECT 1 FROM threads WHERE surface = %s AND conversation = %s "
                       "AND thread = %s", [surface, conversation, thread]).fetchone()
    return row is not None


def chat_session(conn: psycopg.Connection, surface: str, conversation: str, *,
                 gap_min: float, start_new: bool) -> tuple[str, bool]:
    """The session thread (``t<n>``) of a chat without reply chains (Teams 1:1 and group
    chats) for its next message, and whether it is a new one: the current session, or the
    next after ``gap_min`` quiet minutes or when ``start_new``. A new session exists once
    ``open_chat_session`` or a turn's claim records it."""
    row = conn.execute(
        """
        SELECT substr(thread, 2)::int, last_turn_at < now() - %s * interval '1 minute'
          FROM threads
         WHERE surface = %s AND conversation = %s AND thread ~ '^t[0-9]+$'
         ORDER BY substr(thread, 2)::int DESC LIMIT 1
        """, [gap_min, surface, conversation]).fetchone()
    if row is None:
        return "t1", True
    number, quiet = int(row[0]), bool(row[1])
    if start_new or quiet:
        return f"t{number + 1}", True
    return f"t{number}", False


def open_chat_session(conn: psycopg.Connection, *, surface: str, workspace: str,
                      conversation: str, thread: str, thread_key: str,
                      kbs: tuple[str, ...]) -> None:
    """Record a chat's new session before any question in it ("new" said alone)."""
    conn.execute(
        "INSERT INTO threads (surface, conversation, thread, workspace, thread_key, kbs) "
        "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (surface, conversation, thread) "
        "DO UPDATE SET last_turn_at = now()",
        [surface, conversation, thread, workspace, thread_key, list(kbs)])


def record_bot_message(conn: psycopg.Connection, *, surface: str, conversation: str,
                       message_id: str, trace_id: str, thread_key: str, turn_id: int | None,
                       kbs: tuple[str, ...]) -> None:
    """Remember that the bot's message ``message_id`` shows the turn with ``trace_id``."""
    conn.execute(
        """
        INSERT INTO bot_messages (surface, conversation, message_id, trace_id, thread_key,
                                  turn_id, kbs)
        VALUES (%s, %s, %s, %s, %s, %s, %s)
        ON CONFLICT (surface, conversation, message_id) DO UPDATE
           SET trace_id = EXCLUDED.trace_id, turn_id = EXCLUDED.turn_id, kbs = EXCLUDED.kbs
        """,
        [surface, conversation, message_id, trace_id, thread_key, turn_id, list(kbs)],
    )


def trace_for_message(conn: psycopg.Connection, surface: str, conversation: str,
                      message_id: str) -> BotMessage | None:
    """The bot's message ``message_id`` and its trace id, or None if it is not an answer."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            "SELECT surface, conversation, message_id, trace_id, thread_key, turn_id, kbs "
            "FROM bot_messages WHERE surface = %s AND conversation = %s AND message_id = %s",
            [surface, conversation, message_id]).fetchone()
    return BotMessage(**{**row, "kbs": tuple(row["kbs"])}) if row else None


def bot_messages_of_turn(conn: psycopg.Connection, turn_id: int) -> list[str]:
    """The ids of the messages showing a turn's result, oldest first."""
    rows = conn.execute("SELECT message_id FROM bot_messages WHERE turn_id = %s "
                        "ORDER BY created_at, message_id", [turn_id]).fetchall()
    return [str(r[0]) for r in rows]
