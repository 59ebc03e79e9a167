"""Offline answers to "概括一下…" / "Summarize …": one document's key sentences, in order.

A summary question shares few words with the sentences that answer it: the best match word
for word is a judgment's opening sentence ("…纠纷一案，本院于…立案") or a report's revenue line,
while a summary of a judgment is what it decides (the items after "判决如下": 解除…, 支付…元)
and a summary of a report's period is what happened in it (an acquisition, a rights issue,
each with its date or amount). So for such a question the document that fits best is read
whole: its holdings, else its dated events in the asked period, in document order, each
cited, within the answer's length.
"""

from __future__ import annotations

import re

from agent.state import Passage, Sentence
from agent.text import norm, split_sentences
from agent.wording import MONTH_NAMES

# "概括一下…", "请总结…", "简述…", "…的主要内容", "Summarize …", "Give me an overview of …",
# "the key events of …": asked of the bot, not a document's "项目总结会" or "summary table".
# What a judgment decided ("判决结果", "What did the court order") is its holdings too.
_ASKS_SUMMARY = re.compile(
    r"(?:^|[，,。？?：:\s])(?:请|帮我|麻烦|能否|可以|能不能)?(?:简要|简单|大致)?地?"
    r"(?:概括|总结|概述|归纳|简述|综述|梳理)(?:一下|下)?(?=[^会表报人]|$)|"
    r"简要介绍|(?:主要|大致)内容|(?:重大|重要|主要)(?:事项|事件)|"
    r"判决(?:结果|内容)|怎么判(?![断定别])|判了什么|"
    r"\bsummari[sz]e\b|\bsum up\b|\brecap\b|\bbriefly (?:describe|explain)\b|"
    r"\b(?:give|write|provide)\b.{0,12}\b(?:summary|overview|outline)\b|"
    r"^\s*(?:a\s+)?(?:brief\s+|short\s+)?(?:summary|overview|outline)\s+of\b|"
    r"\b(?:main|key|significant|major|notable)\s+(?:events|developments|points|holdings)\b|"
    r"\bwhat did the (?:court|judge|tribunal) (?:decide|order|rule|hold)\b", re.I)
# A judgment's holdings open with "判决如下" (a ruling's "裁定如下"), an English one's with
# "orders as follows" / "It is ordered that".
_HOLDINGS = re.compile(r"(?:判决|裁定|决定)如下\s*[:：]?|\border(?:s|ed)?\s+as\s+follows\s*:?|"
                       r"\bit\s+is\s+(?:hereby\s+)?ordered\s+that\b\s*:?", re.I)
_HOLDING_ITEM = re.compile(r"^\s*(?:[一二三四五六七八九十]{1,3}[、.．]|\d{1,2}[、.．)）]|"
                           r"[（(](?:[一二三四五六七八九十]{1,3}|\d{1,2}|[a-z])[)）])\s*\S")
# A dated event: a day or a month of a year ("2025年3月21日", "2025年4月", "21 March 2025",
# "June 2025").
_MONTHS = MONTH_NAMES
_ZH_DATE = re.compile(r"((?:19|20)\d{2})\s*年\s*(\d{1,2})\s*月")
_EN_DATE = re.compile(r"\b(?:\d{1,2}\s+)?(" + "|".join(_MONTHS) + r")\s+(?:\d{1,2},?\s+)?"
                      r"((?:19|20)\d{2})\b", re.I)
_EN_DATE_US = re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+\d{1,2},\s*((?:19|20)\d{2})\b",
                         re.I)
# An event said without a date still counts when it carries an amount ("完成对…的收购，交易
# 对价为3.1亿元"); a result (revenue, profit) is no event.
_EVENT = re.compile(r"(收购|并购|配股|增发|发行|募集|签订|签署|中标|设立|投产|上市|回购|出售|"
                    r"acqui|rights issue|placing|issued|raised|raising|signed|launched|"
                    r"disposed|sold|completed|agreed)", re.I)
_AMOUNT = re.compile(r"\d[\d,.]*\s*(?:亿|万)?\s*(?:元|美元|港元|英镑|欧元)|"
                     r"[£$€¥]\s*\d[\d,.]*\s*(?:million|billion|bn|m)?\b|"
                     r"\d[\d,.]*\s*(?:million|billion)\s+(?:pounds|dollars|euros|yuan)", re.I)
# The asked period's months: a half, a quarter, else the whole year.
_YEAR = re.compile(r"((?:19|20)\d{2})")
_FIRST_HALF = re.compile(r"上半年|first half|\bH1\b|six months ended 30 June", re.I)
_SECOND_HALF = re.compile(r"下半年|second half|\bH2\b", re.I)
_QUARTER = re.compile(r"(?:第([一二三四1-4])季度|\bQ([1-4])\b|"
                      r"(first|second|third|fourth) quarter)", re.I)
_ORDINAL = {"一": 1, "二": 2, "三": 3, "四": 4, "first": 1, "second": 2, "third": 3,
            "fourth": 4}
MAX_CHARS = 500


def asks_summary(question: str) -> bool:
    """Whether ``question`` asks for a summary of something ("概括一下…的判决内容",
    "Summarize X's events in 2025")."""
    return bool(_ASKS_SUMMARY.search(question))


# The words that ask for a summary, not name its subject: a report need not say "重大事项"
# or "significant events" to hold them, nor a judgment "概括".
_ASKING_WORDS = frozenset([
    "简要", "简单", "大致", "概括", "总结", "概述", "归纳", "简述", "综述", "梳理", "介绍",
    "主要", "重大", "重要", "事项", "事件", "内容", "summarize", "summarise", "summary",
    "overview", "outline", "recap", "briefly", "brief", "key", "main", "significant", "major",
    "notable", "events", "developments", "points"])


def subject_terms(question: str, terms: list[str]) -> list[str]:
    """``terms`` less the words that ask for a summary, when ``question`` asks for one (the
    subject's own words stay: at least one term is always kept)."""
    if not asks_summary(question):
        return terms
    return [t for t in terms if t.casefold() not in _ASKING_WORDS] or terms


def _period(question: str) -> tuple[str | None, set[int]]:
    """The asked year (None: any) and months (all twelve when none is narrowed)."""
    year = _YEAR.search(question)
    months = set(range(1, 13))
    if _FIRST_HALF.search(question):
        months = set(range(1, 7))
    elif _SECOND_HALF.search(question):
        months = set(range(7, 13))
    elif q := _QUARTER.search(question):
        key = next(g for g in q.groups() if g)
        n = _ORDINAL.get(key.lower()) or int(key)
        months = set(range(3 * n - 2, 3 * n + 1))
    return (year.group(1) if year else None), months


def _dates(sentence: str) -> list[tuple[str, int]]:
    out = [(y, int(m)) for y, m in _ZH_DATE.findall(sentence)]
    for pattern in (_EN_DATE, _EN_DATE_US):
        out += [(y, _MONTHS.index(m.lower()) + 1) for m, y in pattern.findall(sentence)]
    return out


def _own(passages: list[Passage], doc_id: str) -> list[int]:
    """Indexes of ``doc_id``'s passages in document order."""
    return sorted((i for i, p in enumerate(passages) if p["doc_id"] == doc_id),
                  key=lambda i: passages[i]["chunk_id"])


def _holdings(passages: list[Passage], own: list[int]) -> list[Sentence]:
    """The items after "判决如下" in document order, each citing its passage (a list the
    chunker cut goes on in the next chunk; the overlap it repeats is taken once)."""
    out: list[Sentence] = []
    seen: set[str] = set()
    started = False
    for i in own:
        text = passages[i]["text"]
        m = _HOLDINGS.search(text)
        if m is None and not started:
            continue
        lines = text[m.end():].splitlines() if m is not None else text.splitlines()
        # "判决如下：驳回原告的诉讼请求。": a single holding on the marker's own line.
        first = lines[0].strip() if m is not None and lines else ""
        started = True
        ended = False
        for n, line in enumerate(lines):
            if not line.strip():
                if out:
                    ended = True
                    break
                continue
            if not _HOLDING_ITEM.match(line) and not (n == 0 and first):
                ended = True
                break
            key = norm(line)
            if key not in seen:
                seen.add(key)
                out.append(Sentence(text=line.strip(), cites=[i + 1]))
        if ended and out:
            break
    return out


def _events(passages: list[Passage], own: list[int], question: str) -> list[Sentence]:
    """The document's sentences holding a date in the asked period, or an event with an
    amount, in document order, each citing its passage."""
    year, months = _period(question)
    out: list[Sentence] = []
    seen: set[str] = set()
    title = norm(passages[own[0]]["title"]) if own else ""
    for i in own:
        for s in split_sentences(passages[i]["text"]):
            key = norm(s)
            if key in seen or key == title or (title and key in title):
                continue
            dates = _dates(s)
            dated = any((year is None or y == year) and m in months for y, m in dates)
            # A date outside the period rules the sentence out, whatever it carries.
            if dated or (not dates and _EVENT.search(s) and _AMOUNT.search(s)):
                seen.add(key)
                out.append(Sentence(text=s, cites=[i + 1]))
    return out


def summarised(question: str, passages: list[Passage], best: int,
               max_chars: int = MAX_CHARS) -> list[Sentence] | None:
    """The key sentences of the document of passage ``best`` (0-based) for a summary
    question: a judgment's holdings, else a report's dated events in the asked period; None
    when the question asks no summary or the document holds neither."""
    if not asks_summary(question) or not passages:
        return None
    own = _own(passages, passages[best]["doc_id"])
    chosen = _holdings(passages, own)
    if not chosen:
        # One dated sentence is no account of a period: the ranked answer is kept then.
        chosen = _events(passages, own, question)
        if len(chosen) < 2:
            return None
    out: list[Sentence] = []
    used = 0
    for s in chosen:
        if out and used + len(s["text"]) > max_chars:
            break
        out.append(s)
        used += len(s["text"])
    return out
