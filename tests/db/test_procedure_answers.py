"""How-to questions on the sample knowledge base answer with the runbook's steps.

Real Postgres, the real embedder, sample documents, the whole offline graph."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Question, build_agent
from store.ingest import ingest_paths

pytestmark = [pytest.mark.db, pytest.mark.model]

KB_DIR = Path(__file__).resolve().parents[2] / "samples" / "kb"
DOCS = ["deploy-procedure.md", "redis-memory-runbook.md", "vpn-setup-faq.md",
        "change-management-policy.md", "onboarding-faq-zh.md"]


@pytest.fixture
def kb_pool(pool: ConnectionPool, embedder: Any) -> ConnectionPool:
    ingest_paths(pool, "samples", [KB_DIR / d for d in DOCS], embedder=embedder)
    return pool


CASES = {
    # question: (cited title, the first step, text of the intro that must not lead)
    "How do I deploy a service to production?": (
        "Production Deploy Procedure", "1. Announce the deploy in #deploys",
        "This runbook describes"),
    "Redis内存满了怎么办": ("Redis内存满了怎么办", "1. 检查淘汰策略", "本手册说明排查与处理步骤"),
    "How do I install the VPN client?": (
        "VPN Setup FAQ", "1. Install the WireGuard client", "Redis"),
}


@pytest.mark.parametrize("question", list(CASES))
def test_how_to_question_answers_with_the_steps_not_the_intro(
        kb_pool: ConnectionPool, embedder: Any, question: str) -> None:
    title, first_step, intro = CASES[question]
    agent = build_agent(kb_pool, embedder)
    result = agent.ask(Question(text=question, thread_id=f"steps-{title}", kb="samples"))
    assert not result.refused
    lines = result.text.splitlines()
    steps_at = next(i for i, line in enumerate(lines) if line.startswith("1."))
    assert lines[steps_at].startswith(first_step)
    # At most the steps' leads on one line before them (long steps), never the intro.
    assert steps_at <= 1
    assert intro not in result.text
    assert [c.title for c in result.citations] == [title]


def test_a_question_about_one_step_is_answered_with_that_step_not_the_whole_list(
        kb_pool: ConnectionPool, embedder: Any) -> None:
    agent = build_agent(kb_pool, embedder)
    result = agent.ask(Question(text="What is the rollback step for a failed deploy?",
                                thread_id="one-step", kb="samples"))
    assert not result.refused
    assert "Rolling back after promotion is a rollback under the change-management" \
        in result.text
    assert "1. Announce the deploy" not in result.text
