"""Names spelled in pinyin (store.pinyin): which Latin words may be one, how a Chinese word is
spelled, and which words of a text a spelling finds."""

from __future__ import annotations

import pytest

from store.cedict import load_cedict
from store.pinyin import Spellings


@pytest.fixture(scope="module")
def sounds() -> Spellings:
    return Spellings(load_cedict())


def test_a_run_together_name_splits_into_syllables(sounds: Spellings) -> None:
    assert sounds.split("Songtao") == ["song", "tao"]
    assert sounds.split("chenjiaqiao") == ["chen", "jia", "qiao"]
    # One syllable is too short to tell from a word; letters no syllable ends are no pinyin.
    assert sounds.split("song") is None
    assert sounds.split("Brixton") is None


def test_english_words_that_happen_to_split_are_no_names(sounds: Spellings) -> None:
    english = load_cedict().en_zh
    assert sounds.may_be_name("Songtao", english)
    assert not sounds.may_be_name("change", english)  # chan-ge
    assert not sounds.may_be_name("bang", english)


def test_a_chinese_word_is_spelled_by_its_characters_readings(sounds: Spellings) -> None:
    assert sounds.of("松涛") == {"songtao"}
    # 绿 reads lü: written "lv" and "lu" in names
    assert {"lvye", "luye"} <= sounds.of("绿野")
    assert sounds.of("松X") == set()


def test_a_spelling_finds_the_texts_words_that_read_so(sounds: Spellings) -> None:
    texts = ["松涛书院周六开放，松涛书院的讲座免费。", "宋涛先生主持。"]
    # both are spelled songtao; the more frequent first
    assert sounds.find("Songtao", texts) == ["松涛", "宋涛"]
    assert sounds.find("songtao", texts, most=1) == ["松涛"]
    assert sounds.find("Meilin", texts) == []
    found = sounds.pattern("songtao")
    assert found is not None
    assert found.startswith("[")
    assert "松" in found
    assert sounds.pattern("Brixton") is None
