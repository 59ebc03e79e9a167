"""A Chinese word's dictionary glosses, against what a KB holds (store.crosslang): a gloss of
several words is a sense as a phrase the KB writes, or through its words when one passage
holds them all, never through one of its words alone; a gloss is held in every form the KB
writes it (the index is not stemmed: "expire" as "expired"). Examples written for this test,
none from an evaluation set."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from store.crosslang import Translator
from store.embedder import Embedder
from store.kb import get_or_create_kb
from store.search import search
from store.tokenize import query_terms
from tests.databases import keyword_lines

pytestmark = pytest.mark.db

# An English office KB. 结账 is "pay the bill; settle accounts" and 健身 "exercise; keep
# fit; work out": the IT line's "accounts" and the gym line's "keep fit" are what a
# word-by-word reading of those glosses finds.
OFFICE = [
    "Accounts lock for ten minutes after three wrong passwords.",
    "Staff who keep fit get a gym voucher each quarter.",
    "The canteen opens at half past eleven.",
    "Parking permits are renewed in January.",
    "Meeting rooms are booked in the calendar.",
    "Guests sign in at the front desk.",
    "Printers on the third floor need a badge.",
    "The VPN client must be updated monthly.",
    "Visitors park on level two.",
    "Laptops are replaced every four years.",
]
# The same KB with a finance line that writes 结账's gloss words apart.
FINANCE = [*OFFICE, "Suppliers settle their accounts with finance every Friday."]


def _kb(pool: ConnectionPool, embedder: Any, name: str, texts: list[str]) -> int:
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, name, embedder)
        keyword_lines(conn, kb, "notes", texts, embedder, seed=3)
        return kb.id


def _translations(pool: ConnectionPool, kb_id: int, query: str) -> dict[str, list[str]]:
    with pool.connection() as conn:
        return Translator().translations(conn, [kb_id], query, query_terms(query))


def test_a_word_of_a_gloss_phrase_alone_is_no_translation(
        pool: ConnectionPool, embedder: Any) -> None:
    # "settle accounts" is no "accounts": the IT line does not speak of 结账
    kb_id = _kb(pool, embedder, "office", OFFICE)
    assert "结账" not in _translations(pool, kb_id, "月底什么时候结账？")


def test_a_gloss_phrase_the_kb_writes_is_kept_whole(
        pool: ConnectionPool, embedder: Any) -> None:
    kb_id = _kb(pool, embedder, "office", OFFICE)
    assert _translations(pool, kb_id, "健身有补贴吗？")["健身"] == ["keep fit"]


def test_a_gloss_is_held_through_its_words_where_one_passage_holds_them_all(
        pool: ConnectionPool, embedder: Any) -> None:
    kb_id = _kb(pool, embedder, "finance", FINANCE)
    assert set(_translations(pool, kb_id, "月底什么时候结账？")["结账"]) == {"settle",
                                                                     "accounts"}


def test_a_chinese_question_does_not_find_a_passage_through_one_word_of_a_gloss(
        pool: ConnectionPool, embedder: Embedder) -> None:
    _kb(pool, embedder, "office", OFFICE)
    translator = Translator()
    hits = search(pool, "office", "结账找谁？", embedder=embedder, k=3, fusion="keyword",
                  translator=translator)
    assert not any(h.text.startswith("Accounts") for h in hits)
    hits = search(pool, "office", "健身有补贴吗？", embedder=embedder, k=3, fusion="keyword",
                  translator=translator)
    assert hits[0].text.startswith("Staff who keep fit")


# An English IT KB: 过期 ("to expire") is written "expires" once, "expire" once, and "expired"
# in the line that answers a question about an old certificate.
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
]


def test_a_gloss_is_held_in_its_past_form(pool: ConnectionPool, embedder: Any) -> None:
    # A word's forms take one of the term's places together: "expires" alone, the rarest,
    # would leave out the line that writes "expired".
    kb_id = _kb(pool, embedder, "it", IT)
    found = _translations(pool, kb_id, "证书过期了怎么办？")
    assert {"expire", "expires", "expired"} <= set(found["过期"])


def test_a_chinese_question_finds_the_line_that_writes_the_past_form(
        pool: ConnectionPool, embedder: Embedder) -> None:
    _kb(pool, embedder, "it", IT)
    hits = search(pool, "it", "VPN 过期了怎么办？", embedder=embedder, k=3, fusion="keyword",
                  translator=Translator())
    assert hits[0].text.startswith("If the VPN handshake")
