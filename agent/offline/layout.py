"""Document structure the answer is assembled from: FAQ pairs and table rows.

A sentence split ignores structure: an FAQ's question line matches a question best word for
word but is not its answer, and a table row ("元旦 | 1月1日 | 3天") says nothing without its
column headers. These helpers turn both into quotable units: the answer of an FAQ pair,
and a table row written with its headers ("元旦：放假时间 1月1日；天数 3天").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agent.offline.lists import lead_in_of
from agent.text import ITEM_MARKER, LIST_ITEM

# A table row and the separator under its header ("|---|:--:|").
_ROW = re.compile(r"^\s*\|.*\|\s*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
# An FAQ question: a line that is all bold, or starts "问：" / "Q:", and asks something.
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)(?P<q>.+?)(?:\*\*|__)\s*(?P<rest>.*)$")
# "Q:" "问：" and numbered "Q1:" "Q2." "问1、" (a bare "A." is a sentence's initial).
_Q_PREFIX = re.compile(r"^\s*(?:问|Q)\s*(?:\d{1,3}\s*[:：.、]|[:：])\s*", re.I)
_A_PREFIX = re.compile(r"^\s*(?:答|A)\s*(?:\d{1,3}\s*[:：.、]|[:：])\s*", re.I)
_ASKS = re.compile(r"([?？]\s*$|^\s*(?:问|Q)\s*(?:\d{1,3}\s*[:：.、]|[:：]))", re.I)
# A line that is one short question ("1. 报销多久到账？", "Why is the VPN slow?") heads the
# lines after it as its answer, as a "Q:" line does.
MAX_QUESTION_CHARS = 120
_MARKUP = re.compile(r"\*\*|__")
# A bold "问：" / "答：" / "Q:" / "A:" label alone, the text after it plain.
_BOLD_LABEL = re.compile(r"^(?:\*\*|__)\s*(?P<label>(?:问|答|Q|A)\s*[:：])\s*(?:\*\*|__)\s*", re.I)


@dataclass(frozen=True)
class FaqPair:
    question: str
    answer: str


def _cells(line: str) -> list[str]:
    return [_MARKUP.sub("", c).strip() for c in line.strip().strip("|").split("|")]


def table_rows(text: str) -> list[tuple[list[str], list[str]]]:
    """Every body row of the pipe tables in ``text`` with its table's header cells."""
    out: list[tuple[list[str], list[str]]] = []
    lines = text.splitlines()
    header: list[str] | None = None
    for i, line in enumerate(lines):
        if not _ROW.match(line):
            header = None
            continue
        if _SEPARATOR.match(line):
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if header is None and _SEPARATOR.match(nxt):
            header = _cells(line)
            continue
        if header is not None:
            out.append((header, _cells(line)))
    return out


def render_row(header: list[str], row: list[str], language: str) -> str:
    """A row with its headers: "元旦：放假时间 1月1日至1月3日；天数 3天" (the first cell names
    the row; a header the cell repeats, or an empty cell, is left out)."""
    colon, sep = ("：", "；") if language == "zh" else (": ", "; ")
    name = row[0] if row else ""
    parts = []
    for head, cell in zip(header[1:], row[1:], strict=False):
        if not cell:
            continue
        parts.append(cell if not head or head in cell else f"{head} {cell}")
    return name + (colon + sep.join(parts) if parts else "")


def is_table_line(line: str) -> bool:
    return bool(_ROW.match(line))


def faq_pairs(text: str) -> list[FaqPair]:
    """Question-and-answer pairs: a bold, "问：/Q:/Q1." or one-question line (a list item
    too: "1. 报销多久到账？") that asks something, and the lines after it up to the next
    such question or heading (an answer may share the question's line: "**问：…？** 答：…";
    a list answer keeps one item a line)."""
    pairs: list[FaqPair] = []
    question: str | None = None
    answer: list[str] = []

    def close() -> None:
        if question is not None and answer:
            # An answer that is a list stays one item a line.
            pairs.append(FaqPair(question=question, answer="".join(
                ("\n" if k and (LIST_ITEM.match(a) or LIST_ITEM.match(answer[k - 1])) else
                 " " if k else "") + a for k, a in enumerate(answer))))

    for raw in text.splitlines():
        # "**问：**试用期多长？" / "**Q:** How…?": only the label is bold; the line reads
        # as "问：试用期多长？".
        line = _BOLD_LABEL.sub(r"\g<label>", raw.strip())
        bold = _BOLD_LINE.match(line)
        asked = bold.group("q") if bold else line
        # A whole bold line ("**My account is locked.**") heads an answer too.
        if asked and ((bold and (_ASKS.search(asked) or not bold.group("rest")))
                      or (_Q_PREFIX.match(line) and _ASKS.search(line))
                      or _one_question(line)):
            close()
            question = _Q_PREFIX.sub("", ITEM_MARKER.sub("", asked, count=1)).strip()
            rest = bold.group("rest").strip() if bold else ""
            answer = [_A_PREFIX.sub("", rest)] if rest else []
            continue
        if line.startswith("#"):
            close()
            question, answer = None, []
            continue
        if question is not None and line:
            answer.append(_A_PREFIX.sub("", _MARKUP.sub("", line)).strip())
    close()
    return pairs


def _one_question(line: str) -> bool:
    bare = _MARKUP.sub("", ITEM_MARKER.sub("", line, count=1)).strip()
    # One sentence: no full stop before the question mark.
    return (bool(bare) and not line.startswith("#") and len(bare) <= MAX_QUESTION_CHARS
            and bare[-1] in "?？" and not re.search(r"[。！!.;；][^?？]", bare))


_LEAD_IN = re.compile(r"[:：]\s*$")


def is_lead_in(sentence: str) -> bool:
    """A sentence that announces what follows ("按以下步骤处理：", "Bring the following:"):
    it says nothing without it."""
    return bool(_LEAD_IN.search(sentence))


def is_question(sentence: str) -> bool:
    """A sentence that asks rather than tells: never quoted as an answer."""
    return bool(_ASKS.search(sentence.strip().rstrip("*_ ")))


@dataclass(frozen=True)
class Unit:
    """A quotable piece of a passage: ``text`` as quoted, ``about`` the words it answers
    (an FAQ answer is about its question too), ``heading`` the plain-text heading it stands
    under, if any (see ``plain_sections``)."""
    text: str
    about: str
    heading: str = ""


# Clause or sentence punctuation: a heading is one phrase and has none.
_PHRASE_BREAK = re.compile(r"[，。；;,!?！？:：、]|\.(?:\s|$)")
# How long a stand-alone line without punctuation may be to read as a heading.
HEADING_MAX_LATIN = 60
HEADING_MAX_CJK = 30


def _plain_heading(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` is a plain-text heading: one short phrase without punctuation,
    alone between blank lines (or at an end), not a list item ("Wi-Fi networks",
    "预订变更")."""
    from store.tokenize import has_cjk

    line = _MARKUP.sub("", lines[i]).strip()
    if not line or LIST_ITEM.match(lines[i]) or _PHRASE_BREAK.search(line):
        return False
    if (i > 0 and lines[i - 1].strip()) or (i + 1 < len(lines) and lines[i + 1].strip()):
        return False
    return len(line) <= (HEADING_MAX_CJK if has_cjk(line) else HEADING_MAX_LATIN)


def plain_sections(lines: list[str]) -> list[tuple[str, str]]:
    """``lines`` cut at their plain-text headings: (heading, the text under it); the text
    before the first heading has none. A plain-text document (.txt, an e-mail) marks its
    sections so, where markdown has "#"."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for i, line in enumerate(lines):
        if _plain_heading(lines, i):
            sections.append((_MARKUP.sub("", line).strip(), []))
        else:
            sections[-1][1].append(line)
    return [(heading, "\n".join(body)) for heading, body in sections]


# How long the text under a question heading may be to read as that question's one answer.
MAX_ANSWER_CHARS = 400


def rendered_rows(text: str) -> list[tuple[str, str]]:
    """Each table row of ``text`` as quoted (``render_row``), with its first column's
    header."""
    from store.tokenize import language_of

    lang = language_of(text)
    return [(render_row(h, r, lang), h[0] if h else "") for h, r in table_rows(text) if any(r)]


def quotable_units(text: str, split: Callable[[str], list[str]], *,
                   heading: str = "") -> list[Unit]:
    """The passage's sentences (by ``split``) that tell something, its table rows with their
    headers, and each FAQ answer whole, about its question. Questions are never units.

    ``heading`` is the passage's own heading: when it asks a question ("## Can I use the VPN
    on my phone?") and the text under it is one short answer in prose, that answer is a unit
    too, whole and in its order ("Yes, for email and chat only. …"), as an FAQ pair's is."""

    pairs = faq_pairs(text)
    asked = {_norm(p.question) for p in pairs}
    # Headings name a section; they answer nothing.
    lines = [line for line in text.splitlines()
             if not is_table_line(line) and not line.lstrip().startswith("#")]
    prose = "\n".join(lines)
    # An answer's "答：" / "A:" label is layout; without it a sentence and the whole FAQ
    # answer holding it are seen as one.
    # A list item is about what its lead-in announces ("入职当天请携带以下材料：" over "银行卡").
    # A plain-text heading is not quoted (it names a section, as a "#" heading does); the
    # sentences under it are about it.
    units = [Unit(text=_A_PREFIX.sub("", s), about=f"{lead_in_of(prose, s) or ''} {s}".strip(),
                  heading=heading)
             for heading, body in plain_sections(lines) for s in split(body)
             if not is_question(s) and not _part_of(_norm(_Q_PREFIX.sub("", s)), asked)]
    # A row is about its first column's header too: "Tier 2" names a city tier, and a
    # question asks for the tier's value by that header's words.
    rows = rendered_rows(text)
    units += [Unit(text=row, about=f"{first} {row}") for row, first in rows]
    units += [Unit(text=p.answer, about=f"{p.question} {p.answer}") for p in pairs]
    body = " ".join(line.strip() for line in text.splitlines() if line.strip())
    if (heading and is_question(heading) and not pairs and not rows and body
            and len(body) <= MAX_ANSWER_CHARS and len(split(body)) > 1
            and not any(LIST_ITEM.match(line) or line.lstrip().startswith("#")
                        for line in text.splitlines())):
        units.append(Unit(text=_MARKUP.sub("", body), about=f"{heading} {body}"))
    return units


def _part_of(sentence: str, asked: set[str]) -> bool:
    """``sentence`` (normalized) is an FAQ question or a sentence of one: "**I forgot my
    password. How do I reset it?**" asks as a whole; its first sentence tells nothing."""
    return sentence in asked or (len(sentence) >= 8 and any(sentence in q for q in asked))


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", _MARKUP.sub("", text)).casefold()


def readable(text: str) -> str:
    """``text`` followed by its table rows as quoted (see ``render_row``): what an answer's
    sentences are checked against."""
    from store.tokenize import language_of

    lang = language_of(text)
    rows = [render_row(h, r, lang) for h, r in table_rows(text) if any(r)]
    return "\n".join([text, *rows])
