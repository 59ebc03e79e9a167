"""Chinese-aware tokens for keyword search and token counts.

Chinese runs are segmented with jieba-rs (rjieba) in search mode; Latin text is split on
word characters and lower-cased. The same function tokenizes documents (into a ``simple``
tsvector) and queries, so both sides agree.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Literal

import rjieba

from store.joined_words import joined_words

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_IS_CJK = re.compile(rf"[{_CJK}]")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_LATIN = re.compile(r"[A-Za-z]")

# Function words that match nearly every passage and carry no topic.
_STOPWORD_TEXT = """
    a an and are as at be been but by can could did do does for from had has have how i if in
    into is it its of on or our so than that the their them then there these they this those
    to was we were what when where which while who whom whose why will with would you your
    的 了 是 在 和 与 及 或 也 就 都 而 之 其 这 那 这个 那个 哪 哪个 哪些
    什么 怎么 怎样 如何 为什么 吗 呢 吧 啊 呀 么 被 把 对 从 向 到 于
    以 为 有 没有 个 一个 请问 请 我 你 他 她 它 我们 你们 他们
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def tokens(text: str, *, drop_stopwords: bool = False, precise: bool = False) -> list[str]:
    """Word tokens of ``text``: jieba words for Chinese runs, lower-cased Latin words.

    Chinese is cut in jieba's search mode (a compound and its overlapping sub-words: what
    the keyword index holds, so a query word finds the compound) or, ``precise``, in its
    precise mode (each character in one word: the words a question is read by)."""
    cut = rjieba.cut if precise else rjieba.cut_for_search
    out: list[str] = []
    for run in _RUN.findall(normalize(text)):
        if _IS_CJK.match(run):
            out.extend(w for w in _joined(cut(run)) if _WORD.fullmatch(w))
        else:
            out.append(run)
    if drop_stopwords:
        out = [t for t in out if t not in STOPWORDS]
    return out


def _joined(words: list[str]) -> list[str]:
    """jieba's ``words`` with two adjacent single characters that make a word it does not
    know joined into that word (``store.joined_words``: 年 / 假 -> 年假)."""
    return [word for word, _ in _joined_tags([(w, "") for w in words])]


def _joined_tags(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(word, tag) pairs joined like ``_joined``; a joined word takes its second
    character's tag (a Chinese compound's head is its last part: 年假 is a kind of 假)."""
    known = joined_words()
    out: list[tuple[str, str]] = []
    for word, tag in pairs:
        if len(word) == 1 and out and len(out[-1][0]) == 1 and out[-1][0] + word in known:
            out[-1] = (out[-1][0] + word, tag)
        else:
            out.append((word, tag))
    return out


# jieba's part-of-speech tags for names of places and organisations. Its person-name tags
# (nr) are not among them: they fall on common nouns too ("籍贯", "华为").
_NAME_TAGS = frozenset(["ns", "nt"])


@functools.lru_cache(maxsize=256)
def _chinese_tags(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's (word, part-of-speech) pairs for the Chinese runs of ``text``; one question
    is tagged once for the refusal rules that read it (names, nouns)."""
    return tuple(pair for run in _RUN.findall(normalize(text)) if _IS_CJK.match(run)
                 for pair in _joined_tags(rjieba.tag(run)))


def chinese_names(text: str) -> list[str]:
    """The Chinese words of ``text`` that jieba tags as names of places or organisations
    ("新加坡"); one-character words left out."""
    return list(dict.fromkeys(word for word, tag in _chinese_tags(text)
                              if tag in _NAME_TAGS and len(word) > 1))


def chinese_nouns(text: str) -> set[str]:
    """The Chinese words of ``text`` that jieba tags as nouns, names or verbal nouns
    ("课程", "新加坡", "管理"); verbs, time and place words ("发生", "下旬", "以后") are not."""
    return {word for word, tag in _chinese_tags(text) if tag.startswith("n") or tag == "vn"}


def keyword_text(text: str) -> str:
    """Space-joined tokens, fed to ``to_tsvector('simple', ...)``."""
    return " ".join(tokens(text))


def tsquery(text: str, *, any_word: bool = False) -> str | None:
    """A ``to_tsquery('simple', ...)`` text matching ``text`` as the keyword index holds it:
    all its search-mode tokens (each quoted), or with ``any_word`` any of them; None when it
    has no token."""
    words = tokens(text)
    if not words:
        return None
    return (" | " if any_word else " & ").join(
        "'" + w.replace("'", "''").replace("\\", "\\\\") + "'" for w in words)


def query_terms(text: str) -> list[str]:
    """Distinct content terms of a query, in order."""
    seen: dict[str, None] = {}
    for t in tokens(text, drop_stopwords=True):
        seen.setdefault(t, None)
    return list(seen)


def count_tokens(text: str) -> int:
    """Token count used for chunk sizes and context budgets (a CJK word or a Latin word)."""
    return len(tokens(text, precise=True))


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese character."""
    return bool(_IS_CJK.search(text))


def cjk_ratio(text: str) -> float:
    """Share of CJK characters among the letters of ``text`` (0 for empty text)."""
    letters = [c for c in text if c.isalnum()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if _IS_CJK.match(c)) / len(letters)


def is_chinese(text: str) -> bool:
    """Whether ``text`` is Chinese: at least 30% of its letters are CJK characters (a Chinese
    question quoting "Redis" or "VPN" is still Chinese)."""
    return cjk_ratio(text) >= 0.3


Language = Literal["zh", "en"]


# The words that carry a sentence's grammar in each language: its function words, and for
# Chinese its question words and particles, colloquial ones included (啥, 咋).
_EN_GRAMMAR = frozenset(w for w in STOPWORDS if not _IS_CJK.match(w)) | frozenset(
    ["not", "no", "my", "me", "does", "do", "did", "is", "are", "can", "should", "much", "many"])
_ZH_GRAMMAR = frozenset(w for w in STOPWORDS if _IS_CJK.match(w)) | frozenset(
    ["啥", "咋", "咋办", "咋样", "为啥", "啥意思", "不", "没", "吗", "多少", "多久", "几", "谁",
     "能", "可以", "要", "还", "就", "怎么办", "为什么", "是不是"])


_QUOTED = re.compile(r"「[^」]*」|『[^』]*』|“[^”]*”|‘[^’]*’|《[^》]*》|\"[^\"]*\"|`[^`]*`")


def language_of(text: str) -> Language:
    """The one language detector of the code base (questions, answers, commands, replies).

    A sentence that mixes the two scripts is in the language that carries its grammar, the
    one its function and question words are in: "root cause是啥", "redis 报 OOM command not
    allowed 写不进去了咋办" are Chinese questions quoting English terms and messages, "What
    does 调休 mean?" an English one quoting a Chinese word, whatever share of the letters
    each script has. With as many grammatical words of each (or none), the language the
    sentence ends in: a question is finished in its own ("报错 connection refused by the
    server 是什么原因")."""
    if not _IS_CJK.search(text) or not _LATIN.search(text):
        return "zh" if is_chinese(text) else "en"
    # A quotation is the quoted text's grammar, not the asker's: "英文名为什么取为「Mercy on
    # the Earth」？", "报错 `permission denied` 是啥".
    words = tokens(_QUOTED.sub(" ", text), precise=True) or tokens(text, precise=True)
    zh = sum(1 for w in words if w in _ZH_GRAMMAR)
    en = sum(1 for w in words if w in _EN_GRAMMAR)
    if zh != en:
        return "zh" if zh > en else "en"
    last = next((w for w in reversed(words) if _WORD.fullmatch(w) and not w.isdigit()), "")
    return "zh" if _IS_CJK.match(last) else "en"
