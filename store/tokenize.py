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


# Common Chinese surnames (one character). A person the question names is a surname and a
# given name of one or two characters; jieba tags most such names ``nr``, but it also tags
# words that merely look like names ("籍贯", "年金"), which seldom begin with a surname.
# Surnames that are also frequent function words (和, 于, 时, 成, 文, 向, 安 ...) are left out.
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶"
    "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺"
    "顾毛郝龚邵万钱严覃武戴莫孔汤温康施牛樊葛邢齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申耿焦俞柳"
    "祝包舒阮柯纪梅童凌毕季裴霍涂苗谷盛翁冉骆蓝游辛靳柴鲍喻祁蒲滕屈饶艾尤穆卓褚娄窦戚岑"
)
# Tags of a given name's part after a lone surname ("赵/nr 国庆/t", "陈/nr 美玲/nr",
# "孔/nr 祥林/ns").
_GIVEN_TAGS = frozenset(["nr", "nz", "ns", "t", "ng", "j", "nrfg", "nrt"])
# Words that join two parties or open a case after a person's name, which jieba may glue
# onto it ("孙丽华诉"): the name ends before them.
_PARTY_JOINS = ("诉",)
# A surname with a title names someone by role ("李经理", "王老师"); documents name them in
# full, so such a word is no name to look for.
_TITLES = ("经理", "总", "老师", "先生", "女士", "小姐", "医生", "大夫", "主任", "律师", "院长",
           "部长", "总监", "同学", "师傅", "阿姨", "工", "哥", "姐", "叔", "姨", "董", "局", "处",
           "科长", "组长", "主管", "教授", "博士", "老板")


def chinese_people(text: str) -> list[str]:
    """The persons ``text`` names in Chinese: a surname and a given name of one or two
    characters, as jieba tags them ("患者赵国庆" -> "赵国庆", "周子涵的手术" -> "周子涵").
    A run of Chinese next to a "·" is part of a transliterated foreign name ("卡尔·冯·贝塔
    郎非"), written in pieces no document need share: it is left out."""
    out: dict[str, None] = {}
    norm = normalize(text)
    for m in _RUN.finditer(norm):
        run = m.group(0)
        if not _IS_CJK.match(run) or _FOREIGN_DOT.match(norm[m.end():m.end() + 1] or "x") \
                or _FOREIGN_DOT.match(norm[max(m.start() - 1, 0):m.start()] or "x"):
            continue
        for name in _people_in_run(_joined_tags(rjieba.tag(run))):
            out.setdefault(name, None)
    return list(out)


_FOREIGN_DOT = re.compile(r"[·•・‧]")


def _people_in_run(pairs: list[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    for i, (tagged, tag) in enumerate(pairs):
        if tag not in ("nr", "nrfg", "nrt") or tagged[0] not in _SURNAMES:
            continue
        after = pairs[i + 1][0] if i + 1 < len(pairs) else ""
        word = next((tagged[:-len(j)] for j in _PARTY_JOINS
                     if len(tagged) > 2 and tagged.endswith(j)), tagged)
        if (len(word) == 3 and len(after) > 1 and len(rjieba.cut(after, False)) > 1
                and len(rjieba.cut(word[2] + after[0], False)) == 1):
            # jieba took a word's first character into the name, leaving a non-word after
            # it ("刘禅继/位后": 继位); "马德胜/出院" keeps its 胜 (出院 is a word).
            word = word[:2]
        if 2 <= len(word) <= 3:
            name = word
        elif len(word) == 1 and after:
            given_tag = pairs[i + 1][1]
            if not (1 <= len(after) <= 2 and given_tag in _GIVEN_TAGS):
                continue
            name = word + after
        else:
            continue
        if not name[1:].startswith(_TITLES):
            out.append(name)
    return out


# The legal or institutional ending of an organisation's full name, longest first: "宁波海之星
# 物流股份有限公司" is [place] + distinctive core + [industry words] + ending.
_ORG_ENDING = re.compile(r"(?:股份有限公司|有限责任公司|有限公司|集团|(?<![子分总母])公司|"
                         r"医院|法院|银行|大学|学院|研究院|研究所|事务所|中心)")
_LEGAL_ENDINGS = frozenset(["股份有限公司", "有限责任公司", "有限公司", "集团"])
# Tags that end the words before a name: prepositions, conjunctions, particles, pronouns,
# numbers, adverbs, directions and punctuation ("与上海…", "在同一家医院", "哪家公司").
_BEFORE_NAME_TAGS = frozenset(["p", "c", "uj", "ul", "uz", "ug", "uv", "ud", "u", "r", "m", "mq",
                               "q", "d", "f", "x", "y", "e", "o", "zg"])
# Tags of the common words that follow a name's core: an industry ("物流", "网络科技"),
# an activity ("租赁", "传动") or a quality ("精密").
_COMMON_TAGS = frozenset(["n", "vn", "v", "a", "an", "ad", "vd", "b", "s", "l", "i", "m", "j"])
# The suffix of a place's administrative level, right after its name ("江州/市").
_PLACE_LEVELS = frozenset("省市区县镇乡州")


def chinese_organisations(text: str) -> list[tuple[str, str]]:
    """The organisations ``text`` names in full, each as (the name as written from its place
    on, its distinctive core): "宁波海之星物流股份有限公司" -> ("宁波海之星物流股份有限公司",
    "海之星"). A name whose words before the ending are all common words ("物流公司", "哪家
    公司", "第一人民医院") has no core and is left out: it names a kind, not one body."""
    out: dict[str, str] = {}
    for run in _RUN.findall(normalize(text)):
        if not _IS_CJK.match(run):
            continue
        for m in _ORG_ENDING.finditer(run):
            pairs = rjieba.tag(run[:m.start()])
            if not pairs:
                continue
            start = 0  # the first word of the name: after the last word that cannot be in it
            place = None  # where the name's place begins, when it has one
            for i, (word, tag) in enumerate(pairs):
                if tag in _BEFORE_NAME_TAGS and not (place is not None and i == start):
                    start, place = i + 1, None
                elif tag == "ns":
                    place = i if place is None or i != start else place
                    start = i + 1
                elif word in _PLACE_LEVELS and place is not None and i == start:
                    start = i + 1
            words = pairs[start:]
            # The core: the words left once the common words at the end are dropped.
            end = len(words)
            while end > 1 and words[end - 1][1] in _COMMON_TAGS:
                end -= 1
            core = words[:end]
            singles = sum(len(w) == 1 for w, _ in core)
            # A core jieba knows as a common word ("青松") still names one body when an
            # industry word follows it and the name has a place or a legal ending; alone
            # ("物流公司", "人民医院") it names a kind.
            formal = place is not None or m.group(0) in _LEGAL_ENDINGS
            if not core or (all(t in _COMMON_TAGS for _, t in core) and singles < 2
                            and not (end == 1 and len(words) > 1 and formal)):
                continue
            first = place if place is not None else start
            name = "".join(w for w, _ in pairs[first:]) + m.group(0)
            out.setdefault(name, "".join(w for w, _ in core))
    return list(out.items())


def dictionary_word(text: str) -> bool:
    """Whether ``text`` is one word of jieba's dictionary (its precise cut without guessing
    at unknown runs leaves it whole): 差错 and 健身卡 are, 假要 and 券能 are not."""
    return len(rjieba.cut(text, False)) == 1


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
