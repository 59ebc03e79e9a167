"""👍/👎 on answers: reaction -> stored vote with the trace -> removal -> export -> eval."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.scenario.conftest import KB, PUBLIC, Bot

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]


def reaction(kind: str, channel: str, ts: str, name: str, user: str,
             *, author: str = "UBOT") -> dict[str, Any]:
    """A reaction event; ``author`` (Slack's ``item_user``) wrote the message reacted to."""
    return {"type": kind, "user": user, "reaction": name, "item_user": author,
            "item": {"type": "message", "channel": channel, "ts": ts},
            "event_ts": f"{time.time():.6f}"}


def ask(bot: Bot, text: str, *, thread_ts: str | None = None) -> tuple[str, str]:
    """Ask in PUBLIC; return (question ts, ts of the bot's answer message)."""
    event = bot.sender.mention(PUBLIC, f"<@UBOT> {text}", thread_ts=thread_ts)
    assert bot.sender.event(event).status == 200
    turn = bot.wait_done(PUBLIC, event["ts"])
    assert turn.state == "done"
    root = thread_ts or event["ts"]
    with bot.deps.pool.connection() as conn:
        rows = conn.execute(
            "SELECT message_id FROM bot_messages WHERE conversation = %s AND turn_id = %s "
            "ORDER BY message_id",
            [PUBLIC, turn.id]).fetchall()
    assert rows, "the answer was not recorded as a bot message"
    assert {m["ts"] for m in bot.answers(PUBLIC, root)} >= {rows[0][0]}
    return event["ts"], rows[0][0]


def stored_votes(bot: Bot, ts: str) -> dict[str, tuple[int, str]]:
    with bot.deps.pool.connection() as conn:
        rows = conn.execute("SELECT user_id, vote, trace_id FROM feedback_votes "
                            "WHERE channel = %s AND message_ts = %s", [PUBLIC, ts]).fetchall()
    return {r[0]: (int(r[1]), r[2]) for r in rows}


def wait_votes(bot: Bot, ts: str, expected: dict[str, int], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        current = {u: v for u, (v, _) in stored_votes(bot, ts).items()}
        if current == expected:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"votes {current}, expected {expected}")
        time.sleep(0.05)


def react(bot: Bot, kind: str, ts: str, name: str, user: str, *, author: str = "UBOT") -> None:
    delivery = bot.sender.event(reaction(kind, PUBLIC, ts, name, user, author=author))
    assert delivery.status == 200
    assert delivery.elapsed_s < 3.0


def test_reaction_stores_one_vote_per_user_with_the_trace_and_removal_withdraws_it(
        bot: Bot) -> None:
    _question_ts, answer_ts = ask(bot, "Which product line had the highest return rate "
                                      "in Q3 2026?")
    react(bot, "reaction_added", answer_ts, "thumbsup", "U2")
    react(bot, "reaction_added", answer_ts, "+1::skin-tone-3", "U3")
    wait_votes(bot, answer_ts, {"U2": 1, "U3": 1})
    (_, trace_id) = stored_votes(bot, answer_ts)["U2"]
    with bot.deps.pool.connection() as conn:
        row = conn.execute("SELECT trace FROM feedback_votes WHERE user_id = 'U2'").fetchone()
    assert row is not None
    trace = row[0]
    assert trace["trace_id"] == trace_id
    assert "return rate" in trace["question"]
    assert trace["answer"]
    assert trace["citations"]
    assert trace["retrieved_chunk_ids"]

    react(bot, "reaction_added", answer_ts, "-1", "U2")  # U2 changes their mind
    wait_votes(bot, answer_ts, {"U2": -1, "U3": 1})
    react(bot, "reaction_removed", answer_ts, "thumbsup", "U2")  # the old 👍 goes away
    react(bot, "reaction_removed", answer_ts, "+1::skin-tone-3", "U3")
    wait_votes(bot, answer_ts, {"U2": -1})
    react(bot, "reaction_removed", answer_ts, "thumbsdown", "U2")
    wait_votes(bot, answer_ts, {})


def test_reaction_added_redelivered_after_its_removal_does_not_restore_the_vote(
        bot: Bot) -> None:
    _question_ts, answer_ts = ask(bot, "How do I deploy to production?")
    added = reaction("reaction_added", PUBLIC, answer_ts, "thumbsup", "U2")
    removed = reaction("reaction_removed", PUBLIC, answer_ts, "thumbsup", "U2")
    removed["event_ts"] = f"{float(added['event_ts']) + 1:.6f}"
    assert bot.sender.event(added, event_id="EvADD").status == 200
    wait_votes(bot, answer_ts, {"U2": 1})
    assert bot.sender.event(removed).status == 200
    wait_votes(bot, answer_ts, {})
    # the old reaction_added comes again after the removal, same event_ts; under a new
    # event id, as the event-id dedup would drop a plain retry before it got here
    assert bot.sender.event(added, event_id="EvADD2", retry_num=1).status == 200
    time.sleep(0.5)  # the listener runs after the ack: give a wrong write time to land
    wait_votes(bot, answer_ts, {})
    # a genuinely new 👍, later than the removal, counts again
    again = reaction("reaction_added", PUBLIC, answer_ts, "+1", "U2")
    again["event_ts"] = f"{float(removed['event_ts']) + 1:.6f}"
    assert bot.sender.event(again).status == 200
    wait_votes(bot, answer_ts, {"U2": 1})


def test_removal_delivered_before_its_add_leaves_no_vote(bot: Bot) -> None:
    _question_ts, answer_ts = ask(bot, "How do I deploy to production?")
    added = reaction("reaction_added", PUBLIC, answer_ts, "-1", "U5")
    removed = reaction("reaction_removed", PUBLIC, answer_ts, "-1", "U5")
    removed["event_ts"] = f"{float(added['event_ts']) + 0.5:.6f}"
    control = reaction("reaction_added", PUBLIC, answer_ts, "+1", "U6")
    for event in (removed, added, control):  # out of order: the removal arrives first
        assert bot.sender.event(event).status == 200
    wait_votes(bot, answer_ts, {"U6": 1})
    time.sleep(0.3)
    wait_votes(bot, answer_ts, {"U6": 1})


def test_reactions_on_other_messages_and_other_emoji_are_ignored(bot: Bot) -> None:
    question_ts, answer_ts = ask(bot, "Which product line had the highest return rate "
                                      "in Q3 2026?")
    react(bot, "reaction_added", question_ts, "thumbsup", "U2", author="U1")  # the human's
    # a message of the bot's not recorded as an answer: held in case it is one still
    # streaming (see bot.conversations.votes), but no vote
    react(bot, "reaction_added", "1600000999.000100", "thumbsup", "U2")
    react(bot, "reaction_added", answer_ts, "tada", "U2")
    react(bot, "reaction_added", answer_ts, "thumbsdown", "U4")  # the control: is stored
    wait_votes(bot, answer_ts, {"U4": -1})
    with bot.deps.pool.connection() as conn:
        count = conn.execute("SELECT count(*) FROM feedback_votes").fetchone()
        held = conn.execute("SELECT message_ts FROM feedback_reactions "
                            "WHERE message_ts <> %s", [answer_ts]).fetchall()
    assert count is not None
    assert count[0] == 1
    assert [r[0] for r in held] == ["1600000999.000100"]  # not the human's question


def run_cli(bot: Bot, embedder: Any, argv: list[str]) -> int:
    """A ``ragbot`` command in this process, on the bot's database and embedder."""
    from bot.cli import build_parser
    from bot.context import AppContext

    args = build_parser().parse_args(argv)
    ctx = AppContext(bot.deps.settings)
    # the cached dependencies of the running bot: no second model load, same database
    ctx.__dict__.update(pool=bot.deps.pool, embedder=embedder)
    return int(args.handler(args, ctx))


def test_upvoted_answers_export_to_a_dataset_that_ragbot_eval_runs(
        bot: Bot, embedder: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _good_q, good = ask(bot, "Which product line had the highest return rate in Q3 2026?")
    _, bad = ask(bot, "What is the on-call escalation policy for P1 incidents?")
    react(bot, "reaction_added", good, "+1", "U2")
    react(bot, "reaction_added", bad, "-1", "U3")
    wait_votes(bot, good, {"U2": 1})
    wait_votes(bot, bad, {"U3": -1})

    out = tmp_path / "fb"
    assert run_cli(bot, embedder, ["feedback", "export", "--out-dir", str(out),
                                   "--kb", KB]) == 0
    questions = [json.loads(line) for line in (out / "questions.jsonl").open(encoding="utf-8")]
    review = [json.loads(line) for line in (out / "review.jsonl").open(encoding="utf-8")]
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").open(encoding="utf-8")]
    assert len(questions) == 1
    assert len(review) == 1
    q = questions[0]
    assert set(q) >= {"id", "question", "answers", "gold_doc_ids", "answerable", "kind"}
    assert q["answerable"] is True
    assert q["kind"] == "single"
    assert q["gold_doc_ids"]
    assert "return rate" in q["question"]
    assert review[0]["trace"]["citations"] is not None
    assert "escalation" in review[0]["question"]
    corpus_ids = {d["id"] for d in corpus}
    assert set(q["gold_doc_ids"]) <= corpus_ids  # gold documents are in the exported corpus
    with bot.deps.pool.connection() as conn:
        docs = conn.execute("SELECT count(*) FROM documents WHERE is_latest").fetchone()
    assert docs is not None
    assert len(corpus) == docs[0]

    results = tmp_path / "results.jsonl"
    capsys.readouterr()
    assert run_cli(bot, embedder, ["eval", str(out), "--kb", "feedback-eval",
                                   "--out", str(results)]) == 0
    (line,) = [json.loads(x) for x in results.open(encoding="utf-8")]
    assert line["id"] == q["id"]
    # the exported corpus, ingested into a fresh KB, still finds and cites the gold document
    assert set(q["gold_doc_ids"]) & set(line["retrieved_doc_ids"][:10])
    assert not line["refused"]
    assert set(line["cited_doc_ids"]) & set(q["gold_doc_ids"])
