"""A translation is found in every form a KB writes it (store.crosslang, store.english_forms):
the index is not stemmed, so a gloss "expire" must also be looked up as "expired", and a
word's forms share one place among a term's translations. Examples written for this test,
none from an evaluation set."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from store.crosslang import Translator
from store.kb import get_or_create_kb
from store.search import search
from store.tokenize import query_terms
from tests.databases import keyword_lines

pytestmark = pytest.mark.db

# An English IT KB: 过期 ("to expire") is written as "expires" once, "expire" once, and
# "expired" in the line that answers a question about an old certificate.
IT = [
    "The vendor contract expires at the end of March.",
    "Guest passes expire at midnight.",
    "If the VPN handshake never completes, your certificate may have expired; request a new "
    "one in the portal.",
    "The VPN client must be updated monthly.",
    "Printers on the third floor need a badge.",
    "Meeting rooms are booked in the calendar.",
    "Laptops are replaced every four years.",
    "The canteen opens at half past eleven.",
    "Parking permits are renewed in January.",
]


@pytest.fixture
def it_kb(pool: ConnectionPool, embedder: Any) -> int:
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, "it", embedder)
        keyword_lines(conn, kb, "it-notes", IT, embedder, seed=5)
        return kb.id


def test_a_gloss_is_held_in_its_past_form(pool: ConnectionPool, it_kb: int) -> None:
    with pool.connection() as conn:
        found = Translator().translations(conn, [it_kb], "证书过期了怎么办？",
                                          query_terms("证书过期了怎么办？"))
    assert {"expire", "expires", "expired"} <= set(found["过期"])


def test_a_chinese_question_finds_the_line_that_writes_the_past_form(
        pool: ConnectionPool, embedder: Any, it_kb: int) -> None:
    hits = search(pool, "it", "VPN 过期了怎么办？", embedder=embedder, k=3,
                  fusion="keyword", translator=Translator())
    assert hits[0].text.startswith("If the VPN handshake")
