"""Votes (👍/👎) on the bot's answers, and their export as evaluation questions.

One vote per user per answer message: a new reaction from the same user replaces the old
one, removing it withdraws it; each reaction follows its latest event by Slack's event
time, so redelivered or reordered events cannot bring a withdrawn vote back. Each vote
keeps a snapshot of the turn's trace (question, rewrite, retrieved and cited chunks,
answer), so the export stays complete even if traces are pruned later.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from store import answer_cache

Vote = Literal[1, -1]
UP: Vote = 1
DOWN: Vote = -1


@dataclass(frozen=True)
class AnswerFeedback:
    """All votes on one answer (one trace; a long answer may span several messages)."""

    channel: str
    message_ts: str
    trace_id: str
    trace: dict[str, Any]
    up: int
    down: int
    up_users: tuple[str, ...]
    down_users: tuple[str, ...]
    last_vote_at: datetime


def record_vote(conn: psycopg.Connection, *, channel: str, message_ts: str, user: str,
                vote: Vote, trace_id: str, trace: dict[str, Any] | None = None,
                kb: str | None = None) -> None:
    """Store ``user``'s vote on the answer at (channel, message_ts); replaces an earlier one."""
    if vote not in (UP, DOWN):
        raise ValueError(f"vote must be 1 or -1, got {vote!r}")
    conn.execute(
        """
        INSERT INTO feedback_votes (channel, message_ts, user_id, vote, trace_id, trace, kb)
        VALUES (%s, %s, %s, %s, %s, %s, %s)
        ON CONFLICT (channel, message_ts, user_id) DO UPDATE
           SET vote = EXCLUDED.vote, trace_id = EXCLUDED.trace_id,
               trace = EXCLUDED.trace, kb = EXCLUDED.kb, updated_at = now()
        """,
        [channel, message_ts, user, vote, trace_id, Jsonb(trace or {}), kb],
    )
    if vote == DOWN:
        # a 👎 answer is not served again from the answer cache, whether the vote is on
        # the computed answer or on a cached copy of it
        answer_cache.evict(conn, [trace_id, (trace or {}).get("cached_from")])


def withdraw_vote(conn: psycopg.Connection, *, channel: str, message_ts: str, user: str,
                  vote: Vote | None = None) -> bool:
    """Remove ``user``'s vote; with ``vote`` only if it is still that vote.

    Removing 👍 after switching to 👎 must not delete the 👎, hence the match on ``vote``.
    Returns whether a vote was removed.
    """
    cur = conn.execute(
        "DELETE FROM feedback_votes WHERE channel = %s AND message_ts = %s AND user_id = %s "
        "AND (%s::smallint IS NULL OR vote = %s::smallint)",
        [channel, message_ts, user, vote, vote],
    )
    return cur.rowcount > 0


_REACTION_LOCK_NAMESPACE = 0x6662  # "fb": advisory lock class, one per (answer, user)
_MESSAGE_LOCK_NAMESPACE = 0x666D  # "fm": one per message, see lock_message


@dataclass(frozen=True)
class ReactionOutcome:
    """What a reaction event did."""

    applied: bool  # False: older than what is recorded for that reaction (stale, ignored)
    vote: Vote | None  # the user's vote on the answer afterwards


def lock_message(conn: psycopg.Connection, channel: str, message_ts: str) -> None:
    """Serialize, until the transaction ends, a vote on the message at (channel,
    message_ts) with the recording of that message as an answer: a vote that finds no
    answer yet is held (:func:`hold_reaction`), and the recording settles what was held
    (:func:`held_votes`), so no vote falls between the two."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                 [_MESSAGE_LOCK_NAMESPACE, f"{channel}\x1f{message_ts}"])


def _latest_reaction(conn: psycopg.Connection, key: list[str], vote: Vote, present: bool,
                     event_ts: Decimal) -> tuple[bool, Vote | None]:
    """Record one reaction event if newer than the recorded one; return whether it was,
    and the user's vote afterwards (their most recently added reaction still present).
    Each reaction keeps the state of its latest event only: Slack may redeliver a
    ``reaction_added`` after the ``reaction_removed`` that followed it, or deliver the two
    out of order, and the older event must not win. A removal is kept as a tombstone for
    this reason."""
    # two events of one user on one answer at once: each derives the vote from the
    # other's finished write
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                 [_REACTION_LOCK_NAMESPACE, "\x1f".join(key)])
    applied = conn.execute(
        """
        INSERT INTO feedback_reactions (channel, message_ts, user_id, vote, present,
                                        event_ts)
        VALUES (%s, %s, %s, %s, %s, %s)
        ON CONFLICT (channel, message_ts, user_id, vote) DO UPDATE
           SET present = EXCLUDED.present, event_ts = EXCLUDED.event_ts,
               updated_at = now()
         WHERE feedback_reactions.event_ts < EXCLUDED.event_ts
        RETURNING 1
        """,
        [*key, vote, present, event_ts],
    ).fetchone() is not None
    row = conn.execute(
        "SELECT vote FROM feedback_reactions WHERE channel = %s AND message_ts = %s "
        "AND user_id = %s AND present ORDER BY event_ts DESC LIMIT 1", key).fetchone()
    current: Vote | None = int(row[0]) if row else None  # type: ignore[assignment]
    return applied, current


def apply_reaction(conn: psycopg.Connection, *, channel: str, message_ts: str, user: str,
                   vote: Vote, present: bool, event_ts: Decimal, trace_id: str,
                   trace: dict[str, Any] | None = None,
                   kb: str | None = None) -> ReactionOutcome:
    """Record that ``user``'s 👍 or 👎 (``vote``) on the answer at (channel, message_ts)
    was added (``present``) or removed at Slack's ``event_ts``, and derive their vote:
    the most recently added reaction still present, so 👍 then 👎 is 👎, and removing
    the 👍 afterwards leaves the 👎. Older events than the recorded one change nothing.
    """
    if vote not in (UP, DOWN):
        raise ValueError(f"vote must be 1 or -1, got {vote!r}")
    with conn.transaction():
        applied, current = _latest_reaction(conn, [channel, message_ts, user], vote,
                                            present, event_ts)
        if not applied:
            return ReactionOutcome(applied=False, vote=current)
        if current is None:
            withdraw_vote(conn, channel=channel, message_ts=message_ts, user=user)
        else:
            record_vote(conn, channel=channel, message_ts=message_ts, user=user,
                        vote=current, trace_id=trace_id, trace=trace, kb=kb)
    return ReactionOutcome(applied=True, vote=current)


def hold_reaction(conn: psycopg.Connection, *, channel: str, message_ts: str, user: str,
                  vote: Vote, present: bool, event_ts: Decimal) -> ReactionOutcome:
    """Record a reaction on a message of the bot's that is not yet recorded as an answer
    (a 👍 on an answer while it is still streaming, or in the moment between posting it
    and recording it): it becomes a vote when the answer is recorded (:func:`held_votes`).
    The same latest-event rule as :func:`apply_reaction` applies."""
    if vote not in (UP, DOWN):
        raise ValueError(f"vote must be 1 or -1, got {vote!r}")
    with conn.transaction():
        applied, current = _latest_reaction(conn, [channel, message_ts, user], vote,
                                            present, event_ts)
    return ReactionOutcome(applied=applied, vote=current)


def held_votes(conn: psycopg.Connection, channel: str, message_ts: str) -> dict[str, Vote]:
    """The vote of each user whose reactions on the message were held before it was
    recorded as an answer (their latest reaction still present), by user id; users who
    already have a vote on it are left out."""
    rows = conn.execute(
        """
        SELECT DISTINCT ON (r.user_id) r.user_id, r.vote
          FROM feedback_reactions r
         WHERE r.channel = %s AND r.message_ts = %s AND r.present
           AND NOT EXISTS (SELECT 1 FROM feedback_votes v
                            WHERE v.channel = r.channel AND v.message_ts = r.message_ts
                              AND v.user_id = r.user_id)
         ORDER BY r.user_id, r.event_ts DESC
        """,
        [channel, message_ts],
    ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}  # type: ignore[misc]


def get_votes(conn: psycopg.Connection, channel: str, message_ts: str) -> dict[str, int]:
    """The current votes on one answer, by user id."""
    rows = conn.execute(
        "SELECT user_id, vote FROM feedback_votes WHERE channel = %s AND message_ts = %s",
        [channel, message_ts],
    ).fetchall()
    return {r[0]: int(r[1]) for r in rows}


def answers_with_votes(conn: psycopg.Connection, *,
                       since: datetime | None = None) -> list[AnswerFeedback]:
    """Every voted answer (oldest first), votes aggregated per trace (per user)."""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            """
            SELECT trace_id,
                   min(channel) AS channel, min(message_ts) AS message_ts,
                   (array_agg(trace ORDER BY updated_at DESC))[1] AS trace,
                   count(DISTINCT user_id) FILTER (WHERE vote = 1) AS up,
                   count(DISTINCT user_id) FILTER (WHERE vote = -1) AS down,
                   coalesce(array_agg(DISTINCT user_id) FILTER (WHERE vote = 1),
                            '{}') AS up_users,
                   coalesce(array_agg(DISTINCT user_id) FILTER (WHERE vote = -1),
                            '{}') AS down_users,
                   max(updated_at) AS last_vote_at
              FROM feedback_votes
             WHERE %(since)s::timestamptz IS NULL OR updated_at >= %(since)s::timestamptz
             GROUP BY trace_id
             ORDER BY min(created_at), trace_id
            """,
            {"since": since},
        ).fetchall()
    return [AnswerFeedback(channel=r["channel"], message_ts=r["message_ts"],
                           trace_id=r["trace_id"], trace=dict(r["trace"] or {}),
                           up=int(r["up"]), down=int(r["down"]),
                           up_users=tuple(r["up_users"]), down_users=tuple(r["down_users"]),
                           last_vote_at=r["last_vote_at"])
            for r in rows]


# ---------------------------------------------------------------- export

def _cited_doc_ids(trace: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for item in trace.get("citations") or trace.get("cited") or []:
        doc_id = item.get("doc_id") if isinstance(item, dict) else item
        if doc_id and str(doc_id) not in out:
            out.append(str(doc_id))
    for doc_id in trace.get("cited_doc_ids") or []:
        if doc_id and str(doc_id) not in out:
            out.append(str(doc_id))
    return out


def _rewrite(trace: dict[str, Any]) -> str:
    return str(trace.get("rewritten_query") or trace.get("rewritten") or trace.get("question")
               or "")


def _is_followup(trace: dict[str, Any]) -> bool | None:
    """What the understand step decided: did the question need the thread? None: unknown."""
    if "is_followup" in trace:
        return bool(trace["is_followup"])
    for step in trace.get("steps") or []:
        if isinstance(step, dict) and step.get("node") == "understand":
            value = (step.get("output") or {}).get("is_followup")
            return None if value is None else bool(value)
    return None


def to_question(item: AnswerFeedback) -> dict[str, Any]:
    """A 👍 answer as one line of questions.jsonl (see shared/datasets/README.md).

    The question is the standalone rewrite, so it can be asked without the thread; the
    thread and turn are kept for follow-ups so an evaluation can still replay them in order.
    """
    trace = item.trace
    original = str(trace.get("question") or "")
    rewrite = _rewrite(trace)
    gold = _cited_doc_ids(trace)
    refused = bool(trace.get("refused", False))
    turn = int(trace.get("turn") or 1)
    followup = _is_followup(trace)
    answerable = not refused and bool(gold)
    if not answerable:
        kind = "unanswerable"
    else:
        kind = "follow_up" if (followup if followup is not None else turn > 1) else "single"
    question: dict[str, Any] = {
        "id": f"feedback-{item.trace_id}",
        "question": rewrite,
        "answers": [],
        "gold_doc_ids": gold if answerable else [],
        "answerable": answerable,
        "kind": kind,
    }
    if turn > 1:
        question["thread"] = str(trace.get("thread_id") or f"{item.channel}:{item.message_ts}")
        question["turn"] = turn
        if rewrite != original:
            question["gold_rewrite"] = rewrite
    if trace.get("answer"):
        question["reference_answer"] = str(trace["answer"])
    return question


def to_review(item: AnswerFeedback) -> dict[str, Any]:
    """A 👎 answer for human review: the votes and the whole trace."""
    return {
        "trace_id": item.trace_id,
        "channel": item.channel,
        "message_ts": item.message_ts,
        "up": item.up,
        "down": item.down,
        "down_users": list(item.down_users),
        "last_vote_at": item.last_vote_at.isoformat(),
        "question": item.trace.get("question"),
        "rewritten_query": _rewrite(item.trace),
        "answer": item.trace.get("answer"),
        "trace": item.trace,
    }


@dataclass(frozen=True)
class Export:
    questions: list[dict[str, Any]]
    review: list[dict[str, Any]]


def export(conn: psycopg.Connection, *, since: datetime | None = None) -> Export:
    """Split voted answers into evaluation questions and a review list.

    An answer with any 👎 goes to review (a disputed answer is not a gold label); an answer
    with 👍 and no 👎 becomes a question. Questions are ordered so that turns of one thread
    come in turn order.
    """
    questions: list[dict[str, Any]] = []
    review: list[dict[str, Any]] = []
    for item in answers_with_votes(conn, since=since):
        if item.down:
            review.append(to_review(item))
        elif item.up:
            questions.append(to_question(item))
    questions.sort(key=lambda q: (q.get("thread") or "", q.get("turn") or 0))
    return Export(questions=questions, review=review)


def latest_documents(conn: psycopg.Connection, kb_name: str) -> Iterator[dict[str, Any]]:
    """The KB's latest documents as corpus.jsonl lines, text rebuilt from their chunks.

    Documents are stored as chunks with overlap; consecutive chunks are joined with the
    overlap removed, so the text is the document's content (headings may differ in form).
    """
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            """
            SELECT d.id, d.doc_key, d.title, d.doc_type, d.source, d.acl, d.metadata,
                   array_agg(c.text ORDER BY c.position) AS texts,
                   array_agg(array_to_json(c.heading_path)::text ORDER BY c.position)
                       AS headings
              FROM knowledge_bases k
              JOIN documents d ON d.kb_id = k.id AND d.generation = k.active_generation
                              AND d.is_latest
              JOIN chunks c ON c.document_id = d.id
             WHERE k.name = %s
             GROUP BY d.id
             ORDER BY d.doc_key
            """,
            [kb_name],
        ).fetchall()
    for r in rows:
        sections = [(tuple(json.loads(h)), t) for h, t in zip(r["headings"], r["texts"],
                                                              strict=True)]
        metadata = {k: v for k, v in dict(r["metadata"] or {}).items()
                    if k not in ("acl", "doc_type", "source", "corpus", "format")}
        metadata.update({"doc_type": r["doc_type"], "source": r["source"],
                         "acl": list(r["acl"])})
        if any(path for path, _ in sections):  # headings were restored as Markdown
            metadata["format"] = "markdown"
        yield {"id": r["doc_key"], "title": r["title"], "text": rebuild_text(sections),
               "metadata": metadata}


def rebuild_text(chunks: Iterable[tuple[tuple[str, ...], str]]) -> str:
    """A document's text from its ordered (heading path, text) chunks, headings restored
    as Markdown headings (chunk texts do not contain them)."""
    parts: list[str] = []
    current: tuple[str, ...] = ()
    group: list[str] = []
    for path, text in chunks:
        if path != current or not group:
            if group:
                parts.append(join_chunks(group))
                group = []
            common = next((i for i, (a, b) in enumerate(zip(path, current, strict=False))
                           if a != b), min(len(path), len(current)))
            parts.extend("#" * (level + 1) + " " + title
                         for level, title in enumerate(path) if level >= common
                         and path != current)
            current = path
        group.append(text)
    if group:
        parts.append(join_chunks(group))
    return "\n\n".join(parts)


def join_chunks(texts: Iterable[str], *, max_overlap: int = 4000) -> str:
    """Concatenate chunk texts, dropping the longest suffix/prefix overlap between neighbours."""
    out = ""
    for text in texts:
        if not out:
            out = text
            continue
        limit = min(len(out), len(text), max_overlap)
        overlap = next((n for n in range(limit, 0, -1) if out.endswith(text[:n])), 0)
        if overlap >= 20:  # a short coincidental match is not chunk overlap
            out += text[overlap:]
        else:
            out += "\n\n" + text
    return out


def write_jsonl(path: str, rows: Iterable[dict[str, Any]]) -> int:
    """Write ``rows`` as UTF-8 JSON lines; returns the count."""
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            n += 1
    return n
