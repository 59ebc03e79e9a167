"""An ellipsis that names a new value for the earlier question's slot.

"那丧假呢？" after "婚假有几天？" asks "丧假有几天？"; "And in Tier 2?" after "What is the hotel
cap in Tier 1 cities?" asks about Tier 2 cities. The new word stands where its sibling stood
in the earlier question, so it replaces that sibling instead of being searched beside it:
searched and ranked together, the old word pulls the answer back to the row already given.

Siblings are read from the words' form alone: two Chinese compounds with the same head (the
last character names the kind: 婚假 / 丧假, 五千块 / 一千块, 一线 / 二线) or two numbers
("Tier 1" / "Tier 2", "2025" / "2026").
"""

from __future__ import annotations

import itertools
import re

from agent.state import Language
from agent.text import content_terms
from store.joined_words import GRAMMATICAL
from store.tokenize import has_cjk, tokens

# "那要是…呢？" / "如果是…呢？" asks "what if it is …?": the condition names the slot's new
# value, so the conditional word is part of the opening, not a word the question asks about.
_OPEN_ZH = re.compile(r"^\s*(那么|那|还有|另外)?\s*(?:(?:要是|如果|假如|若是)是?)?")
_OPEN_EN = re.compile(r"^\s*(and|but|also|so|then|what about|how about)\b[\s,]*", re.I)
# "X的呢？": the 的 marks X as what modifies the thing asked about ("那春节的呢？").
_ATTRIBUTIVE = re.compile(r"的\s*呢\s*[？?]?\s*$")
_DEGREE = ("最", "一共", "总共", "大概", "大约", "至少", "通常")
_END = " \t\r\n？?。.!！"


def _core(question: str, language: Language) -> str:
    """The question without its continuing opening and closing particle ("那丧假呢？" ->
    "丧假"): the words that stand for the earlier question's slot. The close is stripped
    from the end, not matched by a pattern, which would try every position of a long run of
    marks and spaces ("？ ？ ？ …")."""
    opening = _OPEN_ZH if language == "zh" else _OPEN_EN
    core = opening.sub("", question).rstrip(_END)
    if core.endswith(("呢", "吗")):
        core = core[:-1].rstrip()
    return core.removesuffix("的").strip()


def _siblings(new: str, old: str) -> bool:
    """Words of one kind that fill the same slot: Chinese compounds sharing their head
    character, or two numbers."""
    if new == old:
        return False
    if has_cjk(new) and has_cjk(old):
        return len(new) >= 2 and len(old) >= 2 and new[-1] == old[-1]
    return new.isdigit() and old.isdigit()


def substitute(question: str, language: Language, previous: str) -> str | None:
    """``previous`` (the earlier turn's standalone question) with each of its words that the
    follow-up ``question`` names a sibling of replaced by that sibling; ``None`` unless every
    topic word of ``question`` is either in ``previous`` or a sibling of one of its words
    (a follow-up with a word of its own asks something else, and is rewritten by adding the
    thread's topic instead)."""
    core = _core(question, language)
    own = content_terms(core)
    before = content_terms(previous)
    pairs: list[tuple[str, str]] = []
    for term in own:
        if term in before:
            continue
        old = next((b for b in before if _siblings(term, b)), None)
        if old is None and len(own) == 1 and language == "zh" and _ATTRIBUTIVE.search(question):
            old = _attributive(previous, before)
        if old is None:
            return _new_modifier(core, own, before, previous) if language == "zh" else None
        pairs.append((term, old))
    if not pairs:
        return _new_modifier(core, own, before, previous) if language == "zh" else None
    out = previous
    for new, old in pairs:
        # A Chinese follow-up of one word keeps what jieba cut off it ("陪产假呢" is read as
        # 陪 + 产假; the slot's value is 陪产假).
        value = core if len(own) == 1 and has_cjk(new) and new in core and len(core) <= 8 else new
        # A number stands between any other characters ("3000元"); a Latin word between
        # non-word ones.
        edge = r"[\d.]" if old.isdigit() else r"[\w.]"
        # "副组长" after "正组长": the new word holds the old one; its modifier goes too.
        replaced = (_modified(old, out) or old) if has_cjk(old) and value.endswith(old) else old
        pattern = (re.escape(replaced) if has_cjk(replaced)
                   else rf"(?<!{edge}){re.escape(replaced)}(?!{edge})")
        out, n = re.subn(pattern, value.replace("\\", r"\\"), out, count=1, flags=re.I)
        if not n:
            return None
    return out


def _attributive(previous: str, before: list[str]) -> str | None:
    """The word that modifies a noun in ``previous``: one followed by 的 ("上海的住宿标准"),
    or else the first of two topic words written together ("国庆封网"). "那春节的呢？" is
    "what about the 春节 one?": its 的 marks 春节 as such a modifier, so it stands where the
    earlier question's modifier stood, even when the two share no character."""
    words = tokens(previous, precise=True)
    pairs = list(itertools.pairwise(words))
    for word, after in pairs:
        if word in before and after == "的" and has_cjk(word):
            return word
    for word, after in pairs:
        # A superlative after a word says how much of it ("病假最多…"): no noun it modifies.
        if word in before and after in before and has_cjk(word) and has_cjk(after) and \
                not after.startswith(_DEGREE):
            return word
    return None


def _modified(head: str, previous: str) -> str | None:
    """``head`` with the one-character modifier ``previous`` puts before it ("主值班",
    "正组长"): the segmenter cuts such a modifier off as a word of its own, and a follow-up
    naming another modifier of the same head replaces it. ``None`` when ``previous`` puts
    no such character (a grammatical one, a longer word or a verb are left alone)."""
    words = tokens(previous, precise=True)
    for at, word in enumerate(words[1:], start=1):
        old = words[at - 1]
        if word == head and len(old) == 1 and has_cjk(old) and old not in GRAMMATICAL and \
                old + head in previous:
            return old + head
    return None


def _new_modifier(core: str, own: list[str], before: list[str], previous: str) -> str | None:
    """``previous`` with the modifier of its head word replaced by the one ``core`` puts
    before the same head ("那副值班呢？" after "主值班一周补贴多少？" asks "副值班一周补贴多少？"):
    the segmenter cuts the one-character modifier off as no word of its own, so the
    follow-up seems to name nothing new; the head it shares with the earlier question
    shows which slot the new modifier fills. ``None`` unless ``core`` is a short phrase,
    a new modifier and then a head word of ``previous``, and ``previous`` puts a
    one-character modifier right before that head."""
    if not own or len(core) > 8 or not core.endswith(own[-1]) or not has_cjk(core):
        return None
    head = own[-1]
    modifier = core[:-len(head)]
    if head not in before or not modifier or not has_cjk(modifier) or \
            any(t in before for t in own[:-1]):
        return None
    old = _modified(head, previous)
    if old is None or old == core:
        return None
    return previous.replace(old, core, 1)


def restated_terms(question: str, language: Language, restated: str) -> list[str]:
    """The topic words of ``restated`` (``question``'s slot change), with the new value
    kept whole where the segmenter cut a character off it: "陪产假" is read as 陪 + 产假,
    and a later "它" must stand for 陪产假, not for 产假."""
    terms = content_terms(restated)
    core = _core(question, language)
    if not has_cjk(core) or len(core) > 8 or core not in restated:
        return terms
    return list(dict.fromkeys(core if t != core and core.endswith(t) else t for t in terms))
