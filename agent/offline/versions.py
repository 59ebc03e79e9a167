"""Which of near-duplicate documents speaks for now, and for the period asked.

A knowledge base keeps old versions: "Travel Policy 2025" next to "Travel Policy 2024",
and the newer one says so ("This policy replaces the Travel Policy 2024", "原《差旅管理办法
（2024版）》同时废止"). Both hold the question's words; the superseded one must not answer.
And when a question names a period ("2025 年", "Q3"), a sentence about another period of the
same thing answers a different question. Both are read from the documents' own words: no
dates from metadata, no list of known documents.
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
# Share of a title's words a statement must name to name that document.
TITLE_SHARE = 0.8


def periods(text: str) -> set[str]:
    """The years and quarters ``text`` names, normalised ("2025", "Q3")."""
    found = set(_YEAR.findall(text))
    for m in _QUARTER.finditer(text):
        digit = next(g for g in m.groups() if g)
        found.add("Q" + _ZH_DIGIT.get(digit, digit))
    return found


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


def period_fit(question_periods: set[str], sentence: str, frame: str) -> int:
    """+1 when the sentence (or its title and headings) names a period the question asks
    about, -1 when it names only other periods, 0 when the question names none or the
    sentence none."""
    if not question_periods:
        return 0
    own = periods(sentence) | periods(frame)
    if not own:
        return 0
    return 1 if own & question_periods else -1
