"""Chinese words the asker types otherwise than the KB writes them, read as the KB's word.

Two kinds. A verb with a complement of arriving is written with one of several that say the
same ("钱打到卡上" / "款项打入工资卡", "转到" / "转入"): a free combination the dictionary does
not list stands for its forms with the others that the KB holds (``complement_forms``).

And Chinese is typed through a pinyin input method: the asker types the syllables and picks a
character, and a slip picks another character of the same syllable ("报消" for 报销, "发漂"
for 发票). Such a word is in no passage, so the refusal gate finds the question's key word
missing and the keyword search never looks for it. A word is read as the KB's word only
when all of these hold, so that a rare word of the asker's is never rewritten:

- it is two to four Chinese characters and no dictionary headword (a real word is what the
  asker meant, even when the KB lacks it), nor a piece of a longer headword the question
  holds (jieba's search mode cuts 公积金 into 公积 / 积金 too: 积金 is no slip for 基金);
- the KB holds none of it;
- changing one of its characters for one of the same reading (tones aside: input methods
  list them together) gives a dictionary headword the KB holds, and exactly one such word.

Readings come from CC-CEDICT's entries of one character (``store.cedict``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from store.cedict import Cedict
from store.kb_vocab import document_frequencies

# Longer words are phrases; a single character has too many readings and senses.
SHORTEST, LONGEST = 2, 4
_CHINESE_WORD = re.compile(r"[\u3400-\u9fff]+")
# Complements that say where a verb's action ends: "to" or "into".
_INTO = "到入进至"


def complement_forms(word: str, cedict: Cedict) -> list[str]:
    """The other forms of a verb and its complement of arriving ("打到" -> "打入", "打进",
    "打至"), when ``word`` is such a pair and no dictionary headword: a listed word is a
    word of its own (收到 "receive" is no 收入 "income")."""
    if (len(word) != SHORTEST or word[1] not in _INTO or not _CHINESE_WORD.fullmatch(word)
            or word in cedict.zh_en):
        return []
    return [word[0] + c for c in _INTO if c != word[1]]


def sound_alikes(word: str, cedict: Cedict) -> list[str]:
    """The dictionary headwords one character away from ``word`` whose changed character
    has a reading of the character it replaces ("报消" -> ["报销"]); none for a word that is
    a headword itself or not two to four Chinese characters."""
    if (not SHORTEST <= len(word) <= LONGEST or not _CHINESE_WORD.fullmatch(word)
            or word in cedict.zh_en):
        return []
    out: list[str] = []
    for i, char in enumerate(word):
        for syllable in cedict.readings.get(char, ()):
            for other in cedict.homophones.get(syllable, ()):
                candidate = word[:i] + other + word[i + 1:]
                if other != char and candidate in cedict.zh_en and candidate not in out:
                    out.append(candidate)
    return out


def corrections(conn: Any, kb_ids: Sequence[int], terms: Sequence[str], cedict: Cedict
                ) -> dict[str, list[str]]:
    """Per term of ``terms`` that the KBs ``kb_ids`` hold nowhere, the KB's words it stands
    for: the forms with another complement of arriving that they hold, or the one word of
    the same sound that they hold (see the module docstring)."""
    whole = [t for t in terms if t in cedict.zh_en]
    alike = {t: words for t in dict.fromkeys(terms)
             if not any(t in w and t != w for w in whole)
             and (words := sound_alikes(t, cedict))}
    forms = {t: words for t in dict.fromkeys(terms) if (words := complement_forms(t, cedict))}
    if not alike and not forms:
        return {}
    asked = [*alike, *forms, *(w for ws in [*alike.values(), *forms.values()] for w in ws)]
    df, _ = document_frequencies(conn, kb_ids, list(dict.fromkeys(asked)))
    out: dict[str, list[str]] = {}
    for typed, words in forms.items():
        held = [w for w in words if df.get(w, 0) > 0]
        if df.get(typed, 0) == 0 and held:
            out[typed] = held
    for typed, words in alike.items():
        held = [w for w in words if df.get(w, 0) > 0]
        if df.get(typed, 0) == 0 and len(held) == 1:
            out[typed] = held
    return out
