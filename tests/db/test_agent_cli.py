"""``ragbot ask --json``, ``ragbot trace`` and ``ragbot chat`` through the real CLI entry point."""

from __future__ import annotations

import io
import json
import sys

import pytest

from bot.cli import main
from store.types import SourceDocument

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "cli-test"


@pytest.fixture
def cli_env(db_url, pool, embedder, ragbot_home, monkeypatch):  # type: ignore[no-untyped-def]
    from store.ingest import ingest_documents

    ingest_documents(pool, KB, [SourceDocument(
        doc_key="vpn", source="kb/vpn.md", title="VPN setup", fmt="markdown",
        text="# VPN setup\n\nThe VPN server address is vpn.lanting.example.\n")],
        embedder=embedder)
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("RAGBOT_LOG_LEVEL", "WARNING")
    return db_url


def test_ask_json_prints_the_answer_with_citations_and_a_trace_id(cli_env, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["ask", "What is the VPN server address?", "--kb", KB, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "vpn.lanting.example" in out["answer"]
    assert out["citations"][0]["doc_id"] == "vpn"
    assert out["citations"][0]["title"] == "VPN setup"
    assert out["citations"][0]["source"] == "kb/vpn.md"
    assert out["refused"] is False
    assert out["route"] == "single_retrieval"
    assert out["rounds"] >= 1
    assert out["latency_ms"] > 0
    assert set(out) >= {"rewritten_query", "trace_id", "thread_id"}

    assert main(["trace", out["trace_id"]]) == 0
    path = capsys.readouterr().out
    assert "What is the VPN server address?" in path
    for node in ("understand", "route", "plan", "retrieve", "evaluate", "generate", "verify"):
        assert node in path


def test_trace_of_an_unknown_id_names_the_fix(cli_env, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["trace", "nope"]) == 2
    assert "ragbot trace" in capsys.readouterr().out


def test_chat_answers_each_line_in_one_thread_until_exit(cli_env, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys, "stdin", io.StringIO("hello\nWhat is the VPN server address?\nexit\n"))
    assert main(["chat", "--kb", KB]) == 0
    out = capsys.readouterr().out
    assert "Hi! I answer questions" in out
    assert "vpn.lanting.example" in out
    assert "[1] VPN setup" in out


def test_chat_tells_of_a_question_over_the_limit_and_goes_on(cli_env, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    too_long = "Where is the VPN server? " * 200  # 5,000 characters
    monkeypatch.setattr(sys, "stdin", io.StringIO(
        too_long + "\nWhat is the VPN server address?\nexit\n"))
    assert main(["chat", "--kb", KB]) == 0
    out = capsys.readouterr().out
    assert "the limit is 4,000" in out
    assert "vpn.lanting.example" in out
