from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from store import feedback
from store.feedback import DOWN, UP

pytestmark = pytest.mark.db

KINDS = {"single", "multi_hop", "comparison", "follow_up", "unanswerable"}


def assert_dataset_question(q: dict[str, Any]) -> None:
    """A questions.jsonl line as ../shared/datasets/README.md defines it."""
    assert isinstance(q["id"], str)
    assert q["id"]
    assert isinstance(q["question"], str)
    assert q["question"].strip()
    assert isinstance(q["answers"], list)
    assert all(isinstance(g, list) for g in q["answers"])
    assert isinstance(q["gold_doc_ids"], list)
    assert all(isinstance(d, str) for d in q["gold_doc_ids"])
    assert isinstance(q["answerable"], bool)
    assert q["kind"] in KINDS
    if not q["answerable"]:
        assert q["gold_doc_ids"] == []
    if "thread" in q or "turn" in q:
        assert isinstance(q["thread"], str)
        assert isinstance(q["turn"], int)
    json.dumps(q, ensure_ascii=False)


def trace(n: int, *, turn: int = 1, question: str | None = None, rewritten: str | None = None,
          cited: tuple[str, ...] = ("doc-a",), refused: bool = False) -> dict[str, Any]:
    return {
        "trace_id": f"tr{n}", "question": question or f"question {n}",
        "rewritten_query": rewritten or question or f"question {n}", "answer": f"answer {n} [1]",
        "thread_id": "slack:T1:C1:100.0", "turn": turn, "refused": refused, "kb": "default",
        "citations": [{"n": i + 1, "doc_id": d, "title": d, "source": d, "chunk_ids": [i]}
                  for i, d in enumerate(cited)],
        "retrieved": [{"doc_id": d, "chunk_id": i} for i, d in enumerate(cited)],
    }


def vote(pool: ConnectionPool, ts: str, user: str, value: feedback.Vote, n: int,
         **trace_kw: Any) -> None:
    with pool.connection() as conn:
        feedback.record_vote(conn, channel="C1", message_ts=ts, user=user, vote=value,
                             trace_id=f"tr{n}", trace=trace(n, **trace_kw), kb="default")


def votes(pool: ConnectionPool, ts: str) -> dict[str, int]:
    with pool.connection() as conn:
        return feedback.get_votes(conn, "C1", ts)


def test_one_vote_per_user_per_answer_and_a_new_reaction_replaces_it(
        pool: ConnectionPool) -> None:
    vote(pool, "1.1", "U1", UP, 1)
    vote(pool, "1.1", "U1", UP, 1)  # a redelivered event
    vote(pool, "1.1", "U2", UP, 1)
    assert votes(pool, "1.1") == {"U1": 1, "U2": 1}
    vote(pool, "1.1", "U1", DOWN, 1)
    assert votes(pool, "1.1") == {"U1": -1, "U2": 1}


def test_withdraw_removes_only_the_matching_vote(pool: ConnectionPool) -> None:
    vote(pool, "1.1", "U1", UP, 1)
    vote(pool, "1.1", "U1", DOWN, 1)  # switched 👍 -> 👎, then removes the old 👍
    with pool.connection() as conn:
        assert not feedback.withdraw_vote(conn, channel="C1", message_ts="1.1", user="U1",
                                          vote=UP)
        assert votes(pool, "1.1") == {"U1": -1}
        assert feedback.withdraw_vote(conn, channel="C1", message_ts="1.1", user="U1",
                                      vote=DOWN)
        assert not feedback.withdraw_vote(conn, channel="C1", message_ts="1.1", user="U1")
    assert votes(pool, "1.1") == {}


def test_invalid_vote_value_is_refused(pool: ConnectionPool) -> None:
    with pool.connection() as conn, pytest.raises(ValueError, match="1 or -1"):
        feedback.record_vote(conn, channel="C1", message_ts="1", user="U1",
                             vote=2,  # type: ignore[arg-type]
                             trace_id="t")


def test_export_splits_upvoted_questions_from_answers_to_review(pool: ConnectionPool) -> None:
    vote(pool, "1.1", "U1", UP, 1, question="How do I reset the VPN?", cited=("vpn", "it"))
    vote(pool, "1.1", "U2", UP, 1, question="How do I reset the VPN?", cited=("vpn", "it"))
    vote(pool, "2.2", "U1", DOWN, 2)
    vote(pool, "3.3", "U1", UP, 3)
    vote(pool, "3.3", "U2", DOWN, 3)  # disputed: review, not gold
    with pool.connection() as conn:
        result = feedback.export(conn)
    assert [q["id"] for q in result.questions] == ["feedback-tr1"]
    q = result.questions[0]
    assert_dataset_question(q)
    assert q == {"id": "feedback-tr1", "question": "How do I reset the VPN?", "answers": [],
                 "gold_doc_ids": ["vpn", "it"], "answerable": True, "kind": "single",
                 "reference_answer": "answer 1 [1]"}
    assert [(r["trace_id"], r["up"], r["down"]) for r in result.review] == [
        ("tr2", 0, 1), ("tr3", 1, 1)]
    assert result.review[0]["trace"]["retrieved"] == [{"doc_id": "doc-a", "chunk_id": 0}]
    assert result.review[0]["answer"] == "answer 2 [1]"


def test_follow_up_is_exported_as_its_standalone_rewrite_with_thread_and_turn(
        pool: ConnectionPool) -> None:
    vote(pool, "1.1", "U1", UP, 1, turn=1, question="Redis内存满了怎么办")
    vote(pool, "1.2", "U1", UP, 2, turn=2, question="如果用了持久化还不行呢",
         rewritten="Redis内存满了且开启持久化后仍不行怎么办")
    with pool.connection() as conn:
        questions = feedback.export(conn).questions
    for q in questions:
        assert_dataset_question(q)
    follow = questions[1]
    assert follow["kind"] == "follow_up"
    assert follow["question"] == "Redis内存满了且开启持久化后仍不行怎么办"
    assert (follow["thread"], follow["turn"]) == ("slack:T1:C1:100.0", 2)
    assert questions[0]["kind"] == "single"
    assert "thread" not in questions[0]


def test_upvoted_refusal_becomes_an_unanswerable_question(pool: ConnectionPool) -> None:
    vote(pool, "1.1", "U1", UP, 1, refused=True, cited=())
    with pool.connection() as conn:
        (q,) = feedback.export(conn).questions
    assert_dataset_question(q)
    assert (q["answerable"], q["kind"], q["gold_doc_ids"]) == (False, "unanswerable", [])


def test_since_keeps_only_recent_votes(pool: ConnectionPool) -> None:
    vote(pool, "1.1", "U1", UP, 1)
    vote(pool, "2.2", "U1", UP, 2)
    with pool.connection() as conn:
        conn.execute("UPDATE feedback_votes SET updated_at = now() - interval '10 days' "
                     "WHERE message_ts = '1.1'")
        recent = feedback.export(conn, since=datetime.now(UTC) - timedelta(days=1))
        everything = feedback.export(conn)
    assert [q["id"] for q in recent.questions] == ["feedback-tr2"]
    assert len(everything.questions) == 2


def test_join_chunks_removes_the_overlap_between_neighbours() -> None:
    doc = " ".join(f"word{i}" for i in range(300))
    chunks = [doc[:900], doc[700:1700], doc[1500:]]
    assert feedback.join_chunks(chunks) == doc
    assert feedback.join_chunks(["Alpha section.", "Beta section."]) == (
        "Alpha section.\n\nBeta section.")


def test_write_jsonl_keeps_unicode_readable(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    assert feedback.write_jsonl(str(path), [{"question": "应急预案"}]) == 1
    assert path.read_text(encoding="utf-8") == '{"question": "应急预案"}\n'


def test_votes_on_parts_of_one_long_answer_count_once(pool: ConnectionPool) -> None:
    vote(pool, "1.1", "U1", UP, 1)
    vote(pool, "1.2", "U1", UP, 1)  # second message of the same answer (same trace)
    vote(pool, "1.2", "U2", UP, 1)
    with pool.connection() as conn:
        (item,) = feedback.answers_with_votes(conn)
        assert (item.up, item.down, item.up_users) == (2, 0, ("U1", "U2"))
        assert [q["id"] for q in feedback.export(conn).questions] == ["feedback-tr1"]


def test_rebuild_text_restores_headings_and_removes_overlap() -> None:
    from store.chunking import chunk_text

    text = ("# Runbook\n\nIntro.\n\n## Alerts\n\n"
            + " ".join(f"Step {i} of the alert procedure." for i in range(160))
            + "\n\n## Rollback\n\nRoll back with approval.")
    chunks = chunk_text(text)
    assert len(chunks) > 3  # the middle section was split with overlap
    assert feedback.rebuild_text([(c.heading_path, c.text) for c in chunks]) == text


def test_corpus_export_has_latest_versions_full_text_and_acl(
        pool: ConnectionPool, embedder: Any) -> None:
    from store.ingest import ingest_documents
    from store.types import SourceDocument

    body = "# VPN\n\n## Reset\n\n" + " ".join(
        f"To reset the VPN token, step {i} applies." for i in range(120))
    docs = [
        SourceDocument(doc_key="vpn", source="kb/vpn.md", title="VPN guide", text=body,
                       doc_type="runbook", fmt="markdown"),
        SourceDocument(doc_key="hr", source="kb/hr.md", title="Leave", text="Leave is 20 days.",
                       acl=("group:G1",), fmt="markdown"),
    ]
    ingest_documents(pool, "default", docs, embedder=embedder)
    ingest_documents(pool, "default", [SourceDocument(
        doc_key="hr", source="kb/hr.md", title="Leave", text="Leave is 25 days.",
        acl=("group:G1",), fmt="markdown")], embedder=embedder)  # a new version
    with pool.connection() as conn:
        corpus = list(feedback.latest_documents(conn, "default"))
    assert [d["id"] for d in corpus] == ["hr", "vpn"]
    hr, vpn = corpus
    assert hr["text"] == "Leave is 25 days."  # the latest version only
    assert hr["metadata"]["acl"] == ["group:G1"]
    assert vpn["text"] == body
    assert vpn["metadata"] == {"doc_type": "runbook", "source": "kb/vpn.md",
                                    "acl": ["public"], "format": "markdown"}


def test_kind_follows_the_understand_step_when_the_trace_has_it(pool: ConnectionPool) -> None:
    standalone = trace(2, turn=2, question="What is the leave policy?")
    standalone["steps"] = [{"node": "understand", "input": {}, "ms": 1.0,
                            "output": {"query": "What is the leave policy?",
                                       "is_followup": False}}]
    with pool.connection() as conn:
        feedback.record_vote(conn, channel="C1", message_ts="2.2", user="U1", vote=UP,
                             trace_id="tr2", trace=standalone)
        (q,) = feedback.export(conn).questions
    assert_dataset_question(q)
    assert q["kind"] == "single"  # a new, self-contained question later in the thread
    assert q["turn"] == 2  # still replayed in order with its thread


def run_export(pool: ConnectionPool, argv: list[str]) -> int:
    from bot.cli import build_parser
    from bot.context import AppContext
    from bot.settings import Settings

    args = build_parser().parse_args(["feedback", "export", *argv])
    ctx = AppContext(Settings())
    ctx.__dict__["pool"] = pool  # the test's database; nothing else is needed
    return int(args.handler(args, ctx))


def _one_document_kb(pool: ConnectionPool, embedder: Any) -> None:
    from store.ingest import ingest_documents
    from store.types import SourceDocument

    ingest_documents(pool, "default", [SourceDocument(
        doc_key="badge", source="kb/badge.md", title="Badges",
        text="Visitor badges are printed at the front desk.", fmt="markdown")],
        embedder=embedder)


def test_cli_export_out_file_puts_review_and_corpus_beside_it(
        pool: ConnectionPool, embedder: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _one_document_kb(pool, embedder)
    vote(pool, "1.1", "U1", UP, 1)
    vote(pool, "2.2", "U1", DOWN, 2)
    vote(pool, "3.3", "U1", UP, 3)
    with pool.connection() as conn:
        conn.execute("UPDATE feedback_votes SET updated_at = '2020-01-01' "
                     "WHERE message_ts = '3.3'")
    out = tmp_path / "sub" / "fb.jsonl"
    assert run_export(pool, ["--out", str(out), "--since", "2021-06-01"]) == 0
    assert sorted(p.name for p in out.parent.iterdir()) == [
        "fb-corpus.jsonl", "fb-review.jsonl", "fb.jsonl"]
    assert not (tmp_path / "review.jsonl").exists()
    questions = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [q["id"] for q in questions] == ["feedback-tr1"]
    review = out.with_name("fb-review.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["trace_id"] for x in review] == ["tr2"]
    corpus = out.with_name("fb-corpus.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["id"] for x in corpus] == ["badge"]
    assert "1 questions" in capsys.readouterr().out


def test_cli_export_out_dir_writes_a_dataset_folder(
        pool: ConnectionPool, embedder: Any, tmp_path: Path) -> None:
    _one_document_kb(pool, embedder)
    vote(pool, "1.1", "U1", UP, 1)
    assert run_export(pool, ["--out-dir", str(tmp_path / "fb")]) == 0
    assert sorted(p.name for p in (tmp_path / "fb").iterdir()) == [
        "corpus.jsonl", "questions.jsonl", "review.jsonl"]


def test_cli_export_to_a_missing_kb_writes_nothing(
        pool: ConnectionPool, tmp_path: Path) -> None:
    from store.errors import StoreError

    with pytest.raises(StoreError):
        run_export(pool, ["--out", str(tmp_path / "fb.jsonl"), "--kb", "nope"])
    assert list(tmp_path.iterdir()) == []


def test_cli_export_needs_an_output_and_rejects_a_bad_date(
        pool: ConnectionPool, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_export(pool, []) == 2
    assert "--out FILE.jsonl or --out-dir DIR" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_export(pool, ["--out", "x.jsonl", "--since", "last tuesday"])
    assert "use YYYY-MM-DD" in capsys.readouterr().err
