"""Data expiry: what the bot keeps about conversations is deleted after the retention period
(``RAGBOT_RETENTION_DAYS``), and a deleted or restricted document's text leaves stored traces.

Expired, in one transaction:

- finished turns (``turns`` done/failed: they hold the question text);
- agent traces (question, answer, every node's snapshot);
- conversation memory (LangGraph checkpoint tables) of threads whose last checkpoint is
  older than the cutoff and that got no feedback vote: a vote keeps the thread it judged;
  the thread is marked ``context_expired_at`` so its next turn tells the asker;
- delivery dedup rows (``deliveries``);
- archived document versions;
- reactions held for a message of the bot's that was never recorded as an answer (a
  reaction on a notice, or on an answer whose turn failed; see ``store.feedback``).

Feedback votes carry their own trace snapshot and are kept.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import psycopg

_CHECKPOINT_TABLES = ("checkpoint_writes", "checkpoint_blobs", "checkpoints")
SCRUBBED = "[removed: the cited document was deleted or restricted]"


@dataclass(frozen=True)
class PruneReport:
    """How many rows of each kind were deleted."""

    turns: int = 0
    traces: int = 0
    conversations: int = 0
    dedup_events: int = 0
    document_versions: int = 0
    held_reactions: int = 0

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def prune_expired(conn: psycopg.Connection[Any], *, days: float) -> PruneReport:
    """Delete everything older than ``days`` (see the module docstring); one transaction."""
    cutoff = {"days": days}
    with conn.transaction():
        turns = conn.execute(
            "DELETE FROM turns WHERE state IN ('done', 'failed') "
            "AND updated_at < now() - %(days)s * interval '1 day'", cutoff).rowcount
        traces = conn.execute(
            "DELETE FROM agent_traces WHERE created_at < now() - %(days)s * interval '1 day'",
            cutoff).rowcount
        conversations = _prune_checkpoints(conn, days)
        events = conn.execute(
            "DELETE FROM deliveries WHERE received_at < now() - %(days)s * interval '1 day'",
            cutoff).rowcount
        versions = conn.execute(
            "DELETE FROM documents WHERE NOT is_latest "
            "AND archived_at < now() - %(days)s * interval '1 day'", cutoff).rowcount
        held = conn.execute(
            "DELETE FROM feedback_reactions r "
            "WHERE updated_at < now() - %(days)s * interval '1 day' "
            "AND NOT EXISTS (SELECT 1 FROM bot_messages b "
            "                WHERE b.conversation = r.channel AND b.message_id = r.message_ts)",
            cutoff).rowcount
    return PruneReport(turns=turns, traces=traces, conversations=conversations,
                       dedup_events=events, document_versions=versions, held_reactions=held)


def _prune_checkpoints(conn: psycopg.Connection[Any], days: float) -> int:
    """Drop the memory of idle threads without a vote; returns how many threads."""
    row = conn.execute("SELECT to_regclass('checkpoints') IS NOT NULL").fetchone()
    if not row or not row[0]:  # no conversation has been held on this database yet
        return 0
    # A checkpoint's time is its own "ts" (LangGraph writes it on every step).
    expired = [r[0] for r in conn.execute(
        """
        SELECT thread_id FROM checkpoints GROUP BY thread_id
        HAVING max((checkpoint->>'ts')::timestamptz) < now() - %(days)s * interval '1 day'
        EXCEPT
        SELECT b.thread_key FROM feedback_votes v
          JOIN bot_messages b ON b.conversation = v.channel AND b.message_id = v.message_ts
        EXCEPT
        SELECT trace->>'thread_id' FROM feedback_votes WHERE trace ? 'thread_id'
        """, {"days": days}).fetchall()]
    if not expired:
        return 0
    # The saver's delete_thread does the same per thread on its own pool; here all of it
    # commits with the rest of the prune.
    for table in _CHECKPOINT_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE thread_id = ANY(%s)", [expired])
    conn.execute("UPDATE threads SET context_expired_at = now() "
                 "WHERE thread_key = ANY(%s)", [expired])
    return len(expired)


def scrub_document_from_traces(conn: psycopg.Connection[Any], kb_id: int,
                               doc_keys: list[str]) -> int:
    """Remove the answer and node snapshots of every stored trace (and feedback snapshot)
    that cited one of ``doc_keys`` in KB ``kb_id``: the document was deleted or its
    access narrowed, so its text must not stay readable through traces. Returns how many
    traces were scrubbed."""
    if not doc_keys:
        return 0
    cited = ("EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce({col}->'citations', "
             "'[]'::jsonb)) c WHERE c->>'doc_id' = ANY(%(keys)s))")
    scrub = ("{col} || jsonb_build_object('answer', %(mark)s::text, 'steps', '[]'::jsonb, "
             "'scrubbed', true)")
    params = {"kb": kb_id, "keys": doc_keys, "mark": SCRUBBED}
    kb = "kb = (SELECT name FROM knowledge_bases WHERE id = %(kb)s)"
    traces = conn.execute(
        f"UPDATE agent_traces SET answer = %(mark)s, record = {scrub.format(col='record')} "
        f"WHERE {kb} AND {cited.format(col='record')}", params).rowcount
    conn.execute(
        f"UPDATE feedback_votes SET trace = {scrub.format(col='trace')} "
        f"WHERE {kb} AND {cited.format(col='trace')}", params)
    return traces


def take_expired_note(conn: psycopg.Connection[Any], surface: str, conversation: str,
                      thread: str) -> bool:
    """Whether this thread's memory expired since its last turn (and clear the mark, so
    the note is shown once)."""
    row = conn.execute(
        "UPDATE threads SET context_expired_at = NULL WHERE surface = %s "
        "AND conversation = %s AND thread = %s AND context_expired_at IS NOT NULL RETURNING 1",
        [surface, conversation, thread]).fetchone()
    return row is not None
