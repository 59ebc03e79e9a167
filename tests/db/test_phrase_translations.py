"""English phrases translated whole, against what a KB holds (store.phrases through
store.crosslang.Translator): a phrase the KB holds a translation of stands for its words; one
it holds none of gives its words back to be translated alone."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from store.cedict import load_cedict
from store.crosslang import Translator
from store.kb import get_or_create_kb
from store.tokenize import query_terms
from tests.databases import keyword_lines

pytestmark = pytest.mark.db

# A small mixed KB: Chinese policy lines and English notes.
TEXTS = [
    "年假需至少提前 3 个工作日在 HR 系统中申请。",
    "服务器磁盘空间不足时，先清理七天前的日志。",
    "病假可以事后补办，但需在返岗后 3 个工作日内提交医院证明。",
    "The VPN client must be updated before remote work.",
    "Printers on the third floor need a badge to release a job.",
    "新员工试用期为六个月，试用期内不能调岗。",
    "超过预算的采购需部门负责人审批。",
]


@pytest.fixture
def kb_id(pool: ConnectionPool, embedder: Any) -> int:
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, "phrases", embedder)
        keyword_lines(conn, kb, "notes", TEXTS, embedder, seed=7)
        return kb.id


def _translations(pool: ConnectionPool, kb_id: int, query: str, *,
                  workplace: bool = True) -> dict[str, list[str]]:
    translator = Translator(cedict=load_cedict(workplace=workplace))
    with pool.connection() as conn:
        return translator.translations(conn, [kb_id], query, query_terms(query))


def test_a_phrase_the_kb_holds_stands_for_its_words(pool: ConnectionPool, kb_id: int) -> None:
    found = _translations(pool, kb_id, "How far in advance is annual leave requested?")
    assert found["in advance"] == ["提前"]
    assert "advance" not in found
    assert _translations(pool, kb_id, "Can sick notes be handed in after the event?")[
        "after the event"] == ["事后"]


def test_a_phrase_the_kb_holds_no_translation_of_gives_its_words_back(
        pool: ConnectionPool, kb_id: int) -> None:
    # "hard disk" is 硬盘 and 硬碟, which these notes never write; they write 磁盘 ("disk")
    found = _translations(pool, kb_id, "What if the hard disk is full?")
    assert "hard disk" not in found
    assert found["disk"] == ["磁盘"]


def test_a_word_the_kb_holds_none_of_the_senses_of_is_read_in_the_glosses_it_ends(
        pool: ConnectionPool, kb_id: int) -> None:
    # "probation" glosses only 缓刑 (a court's); the notes write 试用期, "be on probation" 试用
    # (the dictionary alone: the workplace lexicon reads "probation" as 试用期 directly)
    assert _translations(pool, kb_id, "Can I change teams while on probation?",
                         workplace=False)["probation"] == ["试用"]
    # "approve" glosses nine headwords, too many to choose; 审批 is "examine and approve"
    assert _translations(pool, kb_id, "Who approves purchases over budget?",
                         workplace=False)["approves"] == ["审批"]
