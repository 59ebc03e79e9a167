"""Names spelled in pinyin (store.pinyin): which Latin words may be one, how a Chinese word is
spelled, and which words of a text a spelling finds."""

from __future__ import annotations

from store.cedict import load_cedict
from store.pinyin import may_be_name, pattern, spelled_words, spellings, split


def test_a_run_together_name_splits_into_syllables() -> None:
    assert split("Songtao") == ["song", "tao"]
    assert split("chenjiaqiao") == ["chen", "jia", "qiao"]
    # One syllable is too short to tell from a word; letters no syllable ends are no pinyin.
    assert split("song") is None
    assert split("Brixton") is None


def test_english_words_that_happen_to_split_are_no_names() -> None:
    english = load_cedict().en_zh
    assert may_be_name("Songtao", english)
    assert not may_be_name("change", english)  # chan-ge
    assert not may_be_name("bang", english)


def test_a_chinese_word_is_spelled_by_its_characters_readings() -> None:
    assert spellings("松涛") == {"songtao"}
    # 绿 reads lü: written "lv" and "lu" in names
    assert {"lvye", "luye"} <= spellings("绿野")
    assert spellings("松X") == set()


def test_a_spelling_finds_the_texts_words_that_read_so() -> None:
    texts = ["松涛书院周六开放，松涛书院的讲座免费。", "宋涛先生主持。"]
    # both are spelled songtao; the more frequent first
    assert spelled_words("Songtao", texts) == ["松涛", "宋涛"]
    assert spelled_words("songtao", texts, most=1) == ["松涛"]
    assert spelled_words("Meilin", texts) == []
    found = pattern("songtao")
    assert found is not None and found.startswith("[") and "松" in found
    assert pattern("Brixton") is None
