"""Chinese words typed otherwise than a KB writes them: a wrong character of the same sound
(its sound-alike headwords from CC-CEDICT's readings) and another complement of arriving;
which of the forms a KB holds: tests/db/test_typed_words.py."""

from __future__ import annotations

from store.cedict import load_cedict
from store.typed_words import complement_forms, sound_alikes


def test_a_non_word_gives_the_headwords_one_character_of_the_same_sound_away() -> None:
    # 漂 (piao) for 票 (piao): the input method listed both under one syllable
    assert "发票" in sound_alikes("发漂", load_cedict())
    # tones aside: 皮 pi2, 批 pi1
    assert "审批" in sound_alikes("审皮", load_cedict())


def test_a_dictionary_word_is_what_the_asker_meant_and_has_no_sound_alikes() -> None:
    # 发飘 ("to feel floaty") is a word of its own, though it sounds like 发票
    assert sound_alikes("发飘", load_cedict()) == []
    assert sound_alikes("发票", load_cedict()) == []


def test_single_characters_long_runs_and_latin_words_are_left_alone() -> None:
    cedict = load_cedict()
    assert sound_alikes("漂", cedict) == []
    assert sound_alikes("发漂抬头写错", cedict) == []
    assert sound_alikes("vpn", cedict) == []


def test_a_free_verb_and_complement_of_arriving_stands_for_its_other_complements() -> None:
    assert complement_forms("打到", load_cedict()) == ["打入", "打进", "打至"]
    # a dictionary word is a word of its own: 收到 "receive" is no 收入 "income"
    assert complement_forms("收到", load_cedict()) == []
    assert complement_forms("卡里", load_cedict()) == []
