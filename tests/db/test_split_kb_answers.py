"""The same documents answer alike whether they sit in one knowledge base or are spread over
several: a search over several KBs ranks as a search over one KB holding all their documents,
and a question's translations are those of the whole set, against the real database and
embedder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Question, build_agent
from store.crosslang import Translator
from store.ingest import ingest_paths
from store.multi_search import search_kbs
from store.search import search
from store.traces import get_trace

pytestmark = [pytest.mark.db, pytest.mark.model]

# Two domains, each bilingual; "all" holds both.
DOCS: dict[str, dict[str, str]] = {
    "people": {
        "travel-claims.md": "---\ntitle: Travel Claims\n---\n# Travel claims\n\n"
        "Submit travel claims in the Ledgerly app within 30 days of returning. Attach every "
        "receipt; claims without receipts are rejected. Claims above 800 euros need the "
        "department head's approval. Refunds are paid with the next salary.\n",
        "annual-leave.md": "---\ntitle: 年假规定\n---\n# 年假规定\n\n"
        "员工入职满一年享有 10 天带薪年假。年假须提前三个工作日在 HR 系统提交申请。"
        "未休完的年假可以顺延到次年 3 月 31 日。\n",
        "holidays.md": "---\ntitle: 2027 年节日安排\n---\n# 2027 年节日安排\n\n"
        "## 放假时间\n\n| 节日 | 放假时间 | 天数 |\n|---|---|---|\n"
        "| 春节 | 2月5日至2月11日 | 7天 |\n| 劳动节 | 5月1日至5月5日 | 5天 |\n"
        "| 国庆节 | 10月1日至10月7日 | 7天 |\n\n## 调休\n\n"
        "国庆节前的 9 月 26 日（周日）上班。春节后的 2 月 20 日（周六）上班。\n",
    },
    "ops": {
        "deploy-freeze.md": "---\ntitle: Deploy Freeze\n---\n# Deploy freeze\n\n"
        "No deploys run during the holiday freeze, which starts two days before each public "
        "holiday. Write off failed canaries in the deploy log and turn off the feature flag. "
        "Apply for an exception with the release manager; the account owner signs it.\n",
        "holiday-duty.md": "---\ntitle: 节假日值班\n---\n# 节假日值班\n\n"
        "节假日期间值班工程师每天检查告警两次。值班补贴为每天 300 元，国庆节期间翻倍。\n",
    },
}
QUESTIONS = ["2027 年国庆节放几天假？", "报销要在多少天内提交？",
             "How many days before a public holiday does the freeze start?",
             "值班补贴是多少？"]


@pytest.fixture
def split_pool(pool: ConnectionPool, embedder: Any, tmp_path: Path) -> ConnectionPool:
    for name, docs in DOCS.items():
        for folder in (tmp_path / name, tmp_path / "all"):
            folder.mkdir(parents=True, exist_ok=True)
            for file, text in docs.items():
                (folder / file).write_text(text, encoding="utf-8")
    for name in ("people", "ops", "all"):
        report = ingest_paths(pool, name, [tmp_path / name], embedder=embedder)
        assert report.failed == 0, report.errors
    return pool


def _ranking(hits: list[Any]) -> list[tuple[float, str, str]]:
    # chunk ids differ between the copies, and so may the order of equal scores
    return sorted(((round(h.score, 9), h.title, h.text) for h in hits),
                  key=lambda x: (-x[0], x[1], x[2]))


@pytest.mark.parametrize("question", QUESTIONS)
def test_several_kbs_rank_as_one_kb_holding_their_documents(
        split_pool: ConnectionPool, embedder: Any, question: str) -> None:
    translator = Translator()
    both = search_kbs(split_pool, ["people", "ops"], question, embedder=embedder, k=8,
                      translator=translator)
    one = search(split_pool, "all", question, embedder=embedder, k=8, translator=translator)
    assert _ranking(both) == _ranking(one)
    assert all(h.kb == Path(h.source).parent.name for h in both)  # each hit names its KB


def test_the_holiday_table_is_not_pushed_down_by_the_other_kbs_best_passage(
        split_pool: ConnectionPool, embedder: Any) -> None:
    # Fusing each KB's ranking by rank put ops' best passage (it only names 国庆节) second,
    # above the table's other passage; one collection ranks by the words themselves.
    hits = search_kbs(split_pool, ["people", "ops"], "2027 年国庆节放几天假？",
                      embedder=embedder, k=4)
    assert [h.kb for h in hits[:2]] == ["people", "people"]


def test_a_question_is_translated_by_the_whole_set_not_by_each_kb(
        split_pool: ConnectionPool) -> None:
    translator = Translator()
    for question in QUESTIONS:
        assert (translator.for_query(split_pool, ["people", "ops"], question)
                == translator.for_query(split_pool, ["all"], question)), question
    # ops writes 报销's gloss "write off" as a phrase, and beside it "apply for" and "the
    # account owner": the phrase is a sense, alone or across the set; the words of "apply for
    # reimbursement" and "submit an expense account" are not, as no passage holds them together
    for kbs in (["ops"], ["people", "ops"]):
        assert translator.for_query(split_pool, kbs, QUESTIONS[1])["报销"] == ["write off"]


def test_an_answer_from_several_kbs_is_the_answer_from_one(
        split_pool: ConnectionPool, embedder: Any) -> None:
    agent = build_agent(split_pool, embedder)
    try:
        # both questions' words are in both KBs, so the router searches both
        for n, question in enumerate(QUESTIONS[:2]):
            both = agent.ask(Question(text=question, thread_id=f"both-{n}", kb="people+ops"))
            one = agent.ask(Question(text=question, thread_id=f"one-{n}", kb="all"))
            with split_pool.connection() as conn:
                trace = get_trace(conn, both.trace_id)
            assert trace is not None
            assert sorted(trace["kbs_searched"]) == ["ops", "people"]
            assert both.text == one.text, question
            assert both.citations[0].kb == "people"
    finally:
        agent.close()

