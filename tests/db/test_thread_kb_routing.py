"""Follow-ups across several knowledge bases: the project's samples/kb split into its four
domains (as `ragbot eval --split-kbs` splits samplekb), asked in threads written for these
tests. A follow-up stays with the KBs its topic came from; a turn the KBs could not answer
lends none; only words that single out another KB move the thread."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Agent, Question, build_agent
from store.traces import get_trace
from tests.databases import cloned_database

pytestmark = [pytest.mark.db, pytest.mark.model]

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "kb"
# Each sample document's domain: who would own it in a company that keeps one KB per domain.
DOMAINS = {
    "eng": ["alert-storm-runbook.md", "change-management-policy.md", "database-backup.md",
            "deploy-procedure.md", "incident-report-checkout-2026-08.md",
            "k8s-pod-crashloop-runbook.md", "mysql-slow-query-runbook.md", "oncall-handbook.md",
            "redis-memory-runbook.md"],
    "it": ["it-helpdesk-faq.md", "lost-laptop-runbook.md", "office-wifi-and-printers.txt",
           "password-security-policy.md", "vpn-setup-faq.md"],
    "people": ["expense-policy.md", "holiday-schedule-2026.html", "leave-policy.md",
               "onboarding-faq-zh.md", "reimbursement-process.md", "remote-work-policy.md",
               "salary-adjustment-2027.md"],
    "business": ["finance-q3-2026-briefing.md", "returns-and-exchange-policy.md",
                 "returns-report-2026-q3.md", "supplier-onboarding-notes.md",
                 "vendor-renewals-2027.md"],
}
ALL = "+".join(DOMAINS)


@pytest.fixture(scope="module")
def agent(pg_admin_url: str, _template: str, embedder: Any,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Agent]:
    """One database for the module (each test asks in its own threads): ingesting the
    samples once keeps the module fast."""
    from store.db import open_pool
    from store.ingest import ingest_paths

    root = tmp_path_factory.mktemp("domains")
    with cloned_database(pg_admin_url, _template) as url:
        pool: ConnectionPool = open_pool(url, max_size=4)
        for kb, files in DOMAINS.items():
            folder = root / kb
            folder.mkdir()
            for name in files:
                shutil.copy(SAMPLES / name, folder / name)
            report = ingest_paths(pool, kb, [folder], embedder=embedder)
            assert report.failed == 0, report.errors
        a = build_agent(pool, embedder)
        yield a
        a.close()
        pool.close()


def _turn(agent: Agent, thread: str, text: str, reply: str | None = None
          ) -> tuple[Any, dict[str, Any]]:
    q = Question(text=text, thread_id=thread, kb=ALL, principals=("public",))
    result = agent.resume(q, reply) if reply is not None else agent.ask(q)
    with agent.deps.pool.connection() as conn:
        trace = get_trace(conn, result.trace_id)
    assert trace is not None
    return result, trace


def test_every_sample_document_has_one_domain() -> None:
    listed = [name for files in DOMAINS.values() for name in files]
    documents = [p.name for p in SAMPLES.iterdir() if p.name != "glossary.tsv"]
    assert sorted(listed) == sorted(documents)


def test_ellipsis_pronoun_and_other_language_follow_ups_stay_in_the_threads_kb(
        agent: Agent) -> None:
    _, trace = _turn(agent, "t-sick", "How many days of sick leave are fully paid?")
    assert trace["kbs_searched"] == ["people"]
    for text in ["事假呢？", "Do I need a doctor's note for that?"]:
        _, trace = _turn(agent, "t-sick", text)
        assert trace["kbs_searched"][0] == "people", text
        assert trace["kb_reason"].startswith("follow-up"), text
    _, trace = _turn(agent, "t-vpn", "The VPN keeps dropping on hotel Wi-Fi, what should I do?")
    assert trace["kbs_searched"] == ["it"]
    _, trace = _turn(agent, "t-vpn", "手机上能装这个客户端吗？")
    assert trace["kbs_searched"] == ["it"]


def test_a_follow_up_whose_few_words_fit_other_kbs_keeps_the_threads_kb_first(
        agent: Agent) -> None:
    _, trace = _turn(agent, "t-chair", "Can I claim a home office chair when I work remotely?")
    assert trace["kbs_searched"] == ["people"]
    # "signs off" alone is approval language of the engineering and IT documents
    result, trace = _turn(agent, "t-chair", "Who signs off on it?")
    assert trace["kbs_searched"][0] == "people"
    assert trace["kb_reason"].startswith("follow-up")
    assert result.citations
    assert result.citations[0].kb == "people"


def test_a_one_word_ellipsis_pointing_elsewhere_searches_the_threads_kb_first(
        agent: Agent) -> None:
    _, trace = _turn(agent, "t-warranty", "笔记本电脑坏了怎么报修？")
    assert trace["kbs_searched"] == ["it"]
    # "保修" alone points to the product returns policy; here it is the laptop's warranty
    _, trace = _turn(agent, "t-warranty", "那保修呢？")
    assert trace["kbs_searched"] == ["it", "business"]
    # The IT KB says nothing of warranties: its passage was cited first only while 保修
    # ("promise to keep in good repair") was read word by word and "keep" held the lost
    # laptop runbook's "keep the report number" (store.gloss_senses).


def test_after_a_refused_turn_a_follow_up_returns_to_the_answered_topics_kb(
        agent: Agent) -> None:
    _, trace = _turn(agent, "t-refused", "年假怎么计算？")
    assert trace["kbs_searched"] == ["people"]
    refused, trace = _turn(agent, "t-refused", "食堂的午饭几点开始供应？")
    assert refused.refused
    assert "people" not in trace["kbs_searched"]  # the canteen's words led elsewhere
    _, trace = _turn(agent, "t-refused", "要找谁审批？")
    assert trace["kbs_searched"] == ["people"]
    assert trace["kb_reason"].startswith("follow-up")


def test_a_follow_up_after_a_clarification_stays_with_the_clarified_topics_kb(
        agent: Agent) -> None:
    asked, _ = _turn(agent, "t-clarify", "怎么申请？")
    assert asked.clarification is not None
    _, trace = _turn(agent, "t-clarify", "怎么申请？", reply="报销")
    assert trace["kbs_searched"] == ["people"]
    _, trace = _turn(agent, "t-clarify", "超过两个月还能报吗？")
    assert trace["kbs_searched"] == ["people"]


def test_a_follow_up_that_names_another_domains_topic_moves_there(agent: Agent) -> None:
    _, trace = _turn(agent, "t-move", "The VPN keeps dropping on hotel Wi-Fi, what should I do?")
    assert trace["kbs_searched"] == ["it"]
    # An ellipsis (a follow-up) whose own two words single out another KB; a question that
    # names its whole topic after "那" ("那出差住宿标准是多少？") is no follow-up at all.
    moved, trace = _turn(agent, "t-move", "那出差住宿呢？")
    assert trace["kbs_searched"] == ["people"]
    assert trace["kb_reason"].startswith("topic changed")
    assert all(c.kb == "people" for c in moved.citations)


def test_a_pronoun_for_the_threads_topic_keeps_its_kb_first_whatever_its_other_words(
        agent: Agent) -> None:
    _, trace = _turn(agent, "t-returns", "退货政策是怎样的？")
    assert trace["kbs_searched"] == ["business"]
    # "broken" is the IT helpdesk's word, but "it" is the returns policy
    result, trace = _turn(agent, "t-returns", "Does it cover broken speakers?")
    assert trace["kbs_searched"][0] == "business"
    assert trace["kb_reason"].startswith("follow-up")
    assert result.citations
    assert result.citations[0].kb == "business"
    _, trace = _turn(agent, "t-carry", "年假有几天？")
    assert trace["kbs_searched"] == ["people"]
    _, trace = _turn(agent, "t-carry", "Can I carry it over to next year?")
    assert trace["kbs_searched"][0] == "people"


def test_a_bare_noun_phrase_with_ne_asks_about_the_threads_topic(agent: Agent) -> None:
    _, trace = _turn(agent, "t-ne", "报销需要哪些材料？")
    assert trace["kbs_searched"] == ["people"]
    # "审批流程" alone reads as the change-management approvals of the engineering KB; "…呢？"
    # asks it of the reimbursement the thread is about.
    result, trace = _turn(agent, "t-ne", "审批流程呢？")
    assert trace["kbs_searched"] == ["people"]
    assert trace["kb_reason"].startswith("follow-up")
    assert result.citations
    assert result.citations[0].doc_id.endswith("reimbursement-process.md")
