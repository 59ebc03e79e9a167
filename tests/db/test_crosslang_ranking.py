"""The keyword side under an English question over a KB written in two languages: a Chinese
passage can only be found there, through the question's translated words, so those words
must weigh what the question's own words weigh."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from store.crosslang import Translator
from store.embedder import Embedder
from store.kb import get_or_create_kb
from store.search import search
from tests.databases import keyword_lines

pytestmark = pytest.mark.db

# 年假 ("annual leave") is in two policy lines; an English line about suppliers holds two
# other words of the question ("annual", "days"), and "days" is in two more.
TEXTS = [
    "年假需至少提前三个工作日申请。",
    "当年未休完的年假可顺延至次年三月。",
    "服务器磁盘空间不足时先清理日志。",
    "报销需在费用发生后六十天内提交。",
    "新员工入职当天领取电脑。",
    "Suppliers with an annual spend under the limit are paid within 30 days.",
    "Sick notes are needed after two days.",
    "Claims are settled within ten days.",
    "Leave by the east stairs.",
    "Printers on the third floor need a badge.",
    "The VPN client must be updated monthly.",
    "Meeting rooms are booked in the calendar.",
    "Guests sign in at the front desk.",
    "The canteen opens at half past eleven.",
    "Parking permits are renewed in January.",
]


@pytest.fixture
def kb(pool: ConnectionPool, embedder: Any) -> str:
    with pool.connection() as conn:
        keyword_lines(conn, get_or_create_kb(conn, "bilingual", embedder), "mixed", TEXTS,
                      embedder, seed=11)
    return "bilingual"


def test_a_phrase_translation_weighs_what_the_phrase_words_weigh_together(
        pool: ConnectionPool, kb: str, embedder: Embedder) -> None:
    # by its own idf, 年假 weighed less than "annual" and "days" together, and the supplier
    # line outranked the policy lines the question's phrase names
    hits = search(pool, kb, "How many days of annual leave are there?", embedder=embedder,
                  k=4, fusion="keyword", translator=Translator())
    assert [("年假" in h.text) for h in hits[:3]] == [True, True, False]
