"""The Teams surface's durable state (``bot.teams``), in Postgres so replicas and restarts
agree:

- ``teams_activities``: an activity id claimed once; Teams redelivers an activity it got no
  answer to within about 15 s, and a redelivery inserts nothing;
- ``teams_turns``: the journal of questions, ``accepted`` in the same statement as the
  claim, then ``running``, ``done``/``failed``;
- ``teams_threads``: channel reply chains the bot answered (later replies are follow-ups);
- ``teams_chats``: the current thread number of each 1:1 / group chat, moved on by a quiet
  gap or "new";
- ``teams_bot_messages``: the bot's answer activity -> trace (votes on answers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import psycopg
from psycopg.rows import dict_row

TurnKind = Literal["ask", "resume", "command"]
TurnState = Literal["accepted", "running", "done", "failed"]

_COLUMNS = ("id, activity_id, kind, tenant, conversation_id, service_url, thread_key, "
            "chat_type, user_id, principals, asker_principals, text, truncated, kb, state, "
            "owner, trace_id")


@dataclass(frozen=True)
class TeamsTurn:
    id: int
    activity_id: str
    kind: TurnKind
    tenant: str
    conversation_id: str
    service_url: str
    thread_key: str
    chat_type: str
    user_id: str
    principals: tuple[str, ...]
    asker_principals: tuple[str, ...]
    text: str
    truncated: bool
    kb: str
    state: TurnState
    owner: str
    trace_id: str | None


@dataclass(frozen=True)
class TurnDraft:
    activity_id: str  # the claim: the message's id, or "<card id>:clarify" for a click
    kind: TurnKind
    tenant: str
    conversation_id: str
    service_url: str
    thread_key: str
    chat_type: str
    user_id: str
    principals: tuple[str, ...]
    asker_principals: tuple[str, ...]
    text: str
    kb: str
    truncated: bool = False
    register_thread: bool = False  # a channel reply chain: later replies are follow-ups


def _turn(row: dict[str, Any]) -> TeamsTurn:
    return TeamsTurn(**{**row, "principals": tuple(row["principals"]),
                        "asker_principals": tuple(row["asker_principals"])})


def claim_turn(conn: psycopg.Connection, draft: TurnDraft, owner: str) -> TeamsTurn | None:
    """Claim the activity and journal its turn in one statement (this runs before Teams
    gets its 200). None when the activity was claimed before (a redelivery)."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            f"""
            WITH claim AS (
                INSERT INTO teams_activities (activity_id) VALUES (%(aid)s)
                ON CONFLICT DO NOTHING RETURNING activity_id
            ), turn AS (
                INSERT INTO teams_turns (activity_id, kind, tenant, conversation_id,
                    service_url, thread_key, chat_type, user_id, principals,
                    asker_principals, text, truncated, kb, owner)
                SELECT activity_id, %(kind)s, %(tenant)s, %(conv)s, %(service)s, %(key)s,
                       %(chat)s, %(user)s, %(principals)s, %(asker)s, %(text)s,
                       %(truncated)s, %(kb)s, %(owner)s FROM claim
                RETURNING {_COLUMNS}
            ), thread AS (
                INSERT INTO teams_threads (thread_key)
                SELECT thread_key FROM turn WHERE %(register)s
                ON CONFLICT DO NOTHING
            )
            SELECT * FROM turn
            """,
            {"aid": draft.activity_id, "kind": draft.kind, "tenant": draft.tenant,
             "conv": draft.conversation_id, "service": draft.service_url,
             "key": draft.thread_key, "chat": draft.chat_type, "user": draft.user_id,
             "principals": list(draft.principals), "asker": list(draft.asker_principals),
             "text": draft.text, "truncated": draft.truncated, "kb": draft.kb,
             "owner": owner, "register": draft.register_thread},
        ).fetchone()
    return _turn(row) if row else None


def claim_activity(conn: psycopg.Connection, activity_id: str) -> bool:
    """Claim an activity that is not a turn (a vote, a notice); False if seen before."""
    return conn.execute("INSERT INTO teams_activities (activity_id) VALUES (%s) "
                        "ON CONFLICT DO NOTHING", [activity_id]).rowcount == 1


def is_answered_thread(conn: psycopg.Connection, thread_key: str) -> bool:
    return conn.execute("SELECT 1 FROM teams_threads WHERE thread_key = %s",
                        [thread_key]).fetchone() is not None


def chat_thread(conn: psycopg.Connection, chat_key: str, *, gap_min: float,
                start_new: bool) -> str:
    """The thread key of the next message in a 1:1 or group chat: the current thread, or
    the next one after ``gap_min`` minutes of quiet or when ``start_new``."""
    row = conn.execute(
        """
        INSERT INTO teams_chats AS c (chat_key) VALUES (%(key)s)
        ON CONFLICT (chat_key) DO UPDATE
           SET thread_no = c.thread_no + CASE
                   WHEN %(new)s OR c.last_message_at < now() - %(gap)s * interval '1 minute'
                   THEN 1 ELSE 0 END,
               last_message_at = now()
        RETURNING thread_no
        """, {"key": chat_key, "new": start_new, "gap": gap_min}).fetchone()
    assert row is not None
    return f"{chat_key}:t{row[0]}"


def mark(conn: psycopg.Connection, turn_id: int, state: TurnState,
         trace_id: str | None = None) -> None:
    conn.execute("UPDATE teams_turns SET state = %s, trace_id = coalesce(%s, trace_id), "
                 "updated_at = now() WHERE id = %s", [state, trace_id, turn_id])


def open_turns(conn: psycopg.Connection, *, stale_after_s: float,
               owner: str) -> list[TeamsTurn]:
    """Turns left accepted/running by another process for ``stale_after_s`` (it died
    after Teams got its 200): taken over by ``owner`` and returned."""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"""
            UPDATE teams_turns SET owner = %s, updated_at = now()
             WHERE state IN ('accepted', 'running') AND owner <> %s
               AND updated_at < now() - make_interval(secs => %s)
            RETURNING {_COLUMNS}
            """, [owner, owner, stale_after_s]).fetchall()
    return [_turn(r) for r in rows]


def record_bot_message(conn: psycopg.Connection, *, activity_id: str, conversation_id: str,
                       trace_id: str, thread_key: str, kb: str) -> None:
    conn.execute("INSERT INTO teams_bot_messages (activity_id, conversation_id, trace_id, "
                 "thread_key, kb) VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                 [activity_id, conversation_id, trace_id, thread_key, kb])


@dataclass(frozen=True)
class BotMessage:
    activity_id: str
    conversation_id: str
    trace_id: str
    thread_key: str
    kb: str


def bot_message(conn: psycopg.Connection, activity_id: str) -> BotMessage | None:
    row = conn.execute("SELECT activity_id, conversation_id, trace_id, thread_key, kb "
                       "FROM teams_bot_messages WHERE activity_id = %s",
                       [activity_id]).fetchone()
    return BotMessage(*row) if row else None
