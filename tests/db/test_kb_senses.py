"""An English word of many senses read in the sense the KB writes (store.crosslang): a word
of a dozen CC-CEDICT headwords ("natural", "collection") stands for those of them the KB
holds, while a verb of dozens ("check", "hold") stays untranslated. Examples written for this
test, none from an evaluation set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Agent, Question
from store.crosslang import Translator
from store.embedder import Embedder
from store.kb import get_or_create_kb
from store.tokenize import query_terms
from tests.databases import files_agent, keyword_lines

pytestmark = pytest.mark.db

LINES = [
    "本市自然保护区总面积约三百平方公里。",
    "古籍部馆藏线装书约四万册。",
    "核对发票金额后再付款。",
    "食堂工作日十一点半开门。",
    "Parking permits are renewed in January.",
]


def _translations(pool: ConnectionPool, embedder: Any, query: str) -> dict[str, list[str]]:
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, "senses", embedder)
        keyword_lines(conn, kb, "lines", LINES, embedder, seed=5)
        return Translator().translations(conn, [kb.id], query, query_terms(query))


def test_a_word_of_a_dozen_senses_stands_for_the_one_the_kb_holds(
        pool: ConnectionPool, embedder: Any) -> None:
    # "natural" glosses 8 headwords; 自然 ("nature; natural") is not one it is first of
    found = _translations(pool, embedder, "How large is the natural reserve?")
    assert "自然" in found["natural"]


def test_a_word_stands_for_the_kbs_headword_whose_gloss_ends_in_it(
        pool: ConnectionPool, embedder: Any) -> None:
    # 馆藏 is "museum collection": one of the many glosses ending in "collection"
    found = _translations(pool, embedder, "How big is the book collection?")
    assert "馆藏" in found["collection"]


def test_a_verb_of_dozens_of_senses_is_not_read_in_a_rare_one_the_kb_holds(
        pool: ConnectionPool, embedder: Any) -> None:
    # "check" glosses some fifty headwords; the KB's 核对 is one, by chance
    assert "check" not in _translations(pool, embedder, "Who should check the invoice?")


LIBRARY = """# 市图书馆古籍部

## 馆藏
市图书馆古籍部馆藏线装古籍约四万册，其中罕见的明代刻本一百二十部，均存放在恒温恒湿书库。

## 阅览
读者须提前一天在网上预约，凭身份证进入古籍阅览室，每次最多调阅三册。
"""

CHESS = """# 全市中学生象棋比赛结果

本届比赛共有三十二支队伍参加。经过三天角逐，明湖中学队夺得团体冠军，青松中学队获得亚军。
"""

PARKING = """# Parking

Parking permits are renewed every January at the front desk. Visitors park on level B2.
"""


@pytest.fixture
def agent(pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> Iterator[Agent]:
    files = {"library.md": LIBRARY, "chess.md": CHESS, "parking.md": PARKING}
    with files_agent(pool, embedder, tmp_path, "library", files) as a:
        yield a


def test_an_english_question_worded_in_the_kbs_sense_is_answered(agent: Agent) -> None:
    # "collection" is held as 馆藏: with it the gate sees three of the four words
    result = agent.ask(Question(text="Where does the library keep its rare collection?",
                                thread_id="senses:kept", kb="library"))
    assert not result.refused, result.text
    assert "恒温恒湿书库" in result.text


def test_an_english_question_the_kb_does_not_answer_is_still_refused(agent: Agent) -> None:
    result = agent.ask(Question(text="Where does the library keep its natural history "
                                "collection?", thread_id="senses:none", kb="library"))
    assert result.refused, result.text
