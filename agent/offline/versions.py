"""Which of near-duplicate documents speaks for now, and for the period asked.

A knowledge base keeps old versions: "Travel Policy 2025" next to "Travel Policy 2024",
and the newer one says so ("This policy replaces the Travel Policy 2024", "原《差旅管理办法
（2024版）》同时废止"). Both hold the question's words; the superseded one must not answer.
And when a question names a period ("2025 年", "Q3") or a numbered member of a series that
recurs ("第三届", "the ninth … Marathon", "3号线", "二期"), a sentence about another period or
member of the same thing answers a different question. Both are read from the documents' own
words: no dates from metadata, no list of known documents.
"""

from __future__ import annotations

import re

from agent.state import Passage
from agent.text import content_terms, norm, term_set

# A statement that one document takes the place of another. The object must name another
# document of the pool (its title) for the statement to count: "replace the laptop" names
# none.
_REPLACES = re.compile(
    r"(\b(?:supersedes?|superseded|replaces?|replaced|replacing|supersed(?:es|ing))\b|"
    r"\bin place of\b|\btakes? the place of\b|取代|替代|代替|废止|作废|停止执行|不再适用)", re.I)
# Statements that run the other way ("superseded by", "replaced by"): the document itself is
# the old one.
_REPLACED_BY = re.compile(r"\b(?:superseded|replaced)\s+by\b|被[^。；;\n]{0,30}(?:取代|替代|代替)",
                          re.I)
_CLAUSE_END = re.compile(r"[。；;！!？?\n]|\.(?:\s|$)")
# A period a question can hold fixed: a year or a quarter, in either language.
_YEAR = re.compile(r"(?<!\d)(20\d\d|19\d\d)(?!\d)")
_QUARTER = re.compile(r"\b(?:Q([1-4])|([1-4])Q)\b|第([一二三四1-4])季度", re.I)
_ZH_DIGIT = {"一": "1", "二": "2", "三": "3", "四": "4"}
# Numbered members of a recurring series, in either language: an edition of an event ("第三届",
# "the third Harbor Film Festival", "9th edition"), a numbered line ("3号线", "Line 3") and a
# phase of a project ("二期", "第一期工程", "Phase 2"). "分 12 期" (instalments), "上一期" and
# "每一期" (which issue, relative to another) name none.
_ZH_NUMERAL = "[0-9一二两三四五六七八九十百]{1,4}"
_ZH_EDITION = re.compile(rf"第\s*({_ZH_NUMERAL})\s*届")
_ZH_LINE = re.compile(rf"({_ZH_NUMERAL})\s*号线")
_ZH_PHASE = re.compile(rf"(?<![分同每这那上下本该前后0-9一二两三四五六七八九十百])第?\s*"
                       rf"({_ZH_NUMERAL})\s*期(?!间|限|望|待|末|中|初|货|刊)")
_ORDINAL_WORDS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                  "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth",
                  "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
                  "twentieth"]
_ORDINAL = re.compile(r"\b(" + "|".join(_ORDINAL_WORDS) + r"|\d{1,3}(?:st|nd|rd|th))\b", re.I)
# An English ordinal names an edition when an edition word or a name follows it ("the ninth
# Lanjiang International Marathon"); "the first step" and "the first Monday" do not.
_EDITION_NEXT = re.compile(r"\s+(?:(?:annual|edition|session|season)\b|(?!(?:Monday|Tuesday|"
                           r"Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|"
                           r"April|May|June|July|August|September|October|November|December)\b)"
                           r"[A-Z][a-z])")
_EN_LINE = re.compile(r"\b(?:Line|line|LINE)\s+(\d{1,3})\b(?=\s|[.,;:!?)]|$)")
_EN_PHASE = re.compile(r"\bphase\s+(\d{1,2}|one|two|three|four|five|I{1,3}|IV)\b", re.I)
_EN_NUMBER = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "i": 1, "ii": 2, "iii": 3,
              "iv": 4}
# Share of a title's words a statement must name to name that document.
TITLE_SHARE = 0.8


def chinese_number(numeral: str) -> int | None:
    """The value of a small Chinese or Arabic numeral ("三" 3, "十二" 12, "二十" 20, "9" 9)."""
    if numeral.isdigit():
        return int(numeral)
    digits = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9}
    if "百" in numeral:
        return None
    if "十" in numeral:
        tens, _, ones = numeral.partition("十")
        if len(tens) > 1 or len(ones) > 1:
            return None
        return (digits.get(tens, 0) if tens else 1) * 10 + (digits.get(ones, 0) if ones else 0)
    return digits.get(numeral) if len(numeral) == 1 else None


def members(text: str) -> dict[str, str]:
    """The numbered series members ``text`` names, normalised, each with its first wording
    ("第三届港灯电影节" -> ``{"edition 3": "第三届"}``; "Line 3", "二期": "line 3", "phase 2")."""
    found: dict[str, str] = {}
    for kind, pattern in (("edition", _ZH_EDITION), ("line", _ZH_LINE), ("phase", _ZH_PHASE)):
        for m in pattern.finditer(text):
            n = chinese_number(m.group(1))
            if n:
                found.setdefault(f"{kind} {n}", m.group(0))
    for m in _ORDINAL.finditer(text):
        if _EDITION_NEXT.match(text, m.end()):
            word = m.group(1).lower()
            n = (_ORDINAL_WORDS.index(word) + 1 if word in _ORDINAL_WORDS
                 else int(word[:-2]))
            found.setdefault(f"edition {n}", m.group(0))
    for m in _EN_LINE.finditer(text):
        found.setdefault(f"line {m.group(1)}", m.group(0))
    for m in _EN_PHASE.finditer(text):
        word = m.group(1).lower()
        found.setdefault(f"phase {int(word) if word.isdigit() else _EN_NUMBER[word]}",
                         m.group(0))
    return found


def periods(text: str) -> set[str]:
    """The years, quarters and numbered series members ``text`` names, normalised ("2025",
    "Q3", "edition 3")."""
    found = set(_YEAR.findall(text))
    for m in _QUARTER.finditer(text):
        digit = next(g for g in m.groups() if g)
        found.add("Q" + _ZH_DIGIT.get(digit, digit))
    return found | set(members(text))


def kind_of(period: str) -> str:
    """What a normalised period counts ("2025" a year, "Q3" a quarter, "line 3" a line)."""
    if period.isdigit():
        return "year"
    return "quarter" if period.startswith("Q") else period.split(maxsplit=1)[0]


def _statements(text: str, pattern: re.Pattern[str]) -> list[str]:
    """The clauses of ``text`` that hold ``pattern``, from the clause start to its end."""
    out = []
    for m in pattern.finditer(text):
        start = max((e.end() for e in _CLAUSE_END.finditer(text, 0, m.start())), default=0)
        end = _CLAUSE_END.search(text, m.end())
        out.append(text[start:end.start() if end else len(text)])
    return out


def names_document(statement: str, title: str) -> bool:
    """Whether ``statement`` names the document called ``title``: the whole title, or most
    of its words, and no period the title does not have (a statement about "the 2023
    edition" does not name the 2024 one)."""
    said = periods(statement)
    if said and not said & periods(title):
        return False
    if norm(title) in norm(statement):
        return True
    words = content_terms(title)
    held = term_set(statement)
    return bool(words) and sum(1 for w in words if w in held or w in statement) >= (
        TITLE_SHARE * len(words))


def superseded(passages: list[Passage]) -> set[str]:
    """The doc ids of the pool whose document another document of the pool says it replaces
    (or that say they were replaced by one in the pool). Two documents that each claim to
    replace the other decide nothing."""
    titles = {p["doc_id"]: p["title"] for p in passages}
    old_by: dict[str, set[str]] = {}
    for p in passages:
        for statement in _statements(p["text"], _REPLACES):
            if _REPLACED_BY.search(statement):
                old_by.setdefault(p["doc_id"], set()).update(
                    d for d, t in titles.items()
                    if d != p["doc_id"] and names_document(statement, t))
                continue
            for d, t in titles.items():
                if d != p["doc_id"] and names_document(statement, t):
                    old_by.setdefault(d, set()).add(p["doc_id"])
    return {d for d, newer in old_by.items()
            if any(d not in old_by.get(n, set()) for n in newer)}


def period_fit(question_periods: set[str], sentence: str, frame: str,
               around: set[str] | None = None) -> int:
    """+1 when the sentence (or its title and headings) names a period or series member the
    question asks about, -1 when, for a kind the question names (a year, an edition, a line),
    it names only others, 0 when the question names none or the sentence none. Where the
    sentence and its frame name nothing of a kind, the periods of the passage around it
    (``around``) speak for them: a report's first line says which edition its later
    sentences are about."""
    if not question_periods:
        return 0
    near, far = periods(sentence) | periods(frame), around or set()
    fit = 0
    for kind in {kind_of(p) for p in question_periods}:
        same = {p for p in near if kind_of(p) == kind}
        if same:
            if not same & question_periods:
                return -1
            fit = 1
            continue
        # The passage speaks for its sentences only when it is about one member of the kind
        # (a report on one edition, one quarter's figures): a biography naming four years
        # does not make each of its sentences about any one of them.
        others = {p for p in far if kind_of(p) == kind}
        if len(others) == 1:
            if not others & question_periods:
                return -1
            fit = 1
    return fit
