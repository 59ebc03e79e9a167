"""The one English stemmer (store.stem): Snowball's, safe across threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from store.stem import stem


def test_inflections_share_a_stem() -> None:
    assert stem("ferries") == stem("ferry")
    assert stem("renovating") == stem("renovated") == stem("renovate")
    assert stem("auditors") == stem("auditor")
    assert stem("gardens") != stem("garlic")


def test_a_possessive_loses_its_s_with_either_apostrophe() -> None:
    assert stem("kestrel's") == stem("kestrel’s") == stem("kestrel")


def test_words_without_latin_letters_are_left_as_they_are() -> None:
    assert stem("报销单") == "报销单"
    assert stem("2031") == "2031"


def test_threads_stemming_at_once_get_the_same_stems() -> None:
    words = [f"{base}{suffix}" for base in ("walk", "paint", "harvest", "clean")
             for suffix in ("", "s", "ed", "ing", "er", "ers")] * 50
    expected = [stem(w) for w in words]
    stem.cache_clear()
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(stem, words))
    assert got == expected
