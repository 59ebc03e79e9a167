"""Offline ``understand``: detect follow-ups and borrow the missing topic from the thread."""

from __future__ import annotations

import re

from agent.offline.route import is_chitchat
from agent.offline.text import content_terms, language_of, norm
from agent.state import Turn, Understanding, UnderstandInput

# Words that point back at something said earlier.
_REFER_EN = re.compile(
    r"\b(it|its|they|them|their|those|these|that|this|he|she|his|her|him|the same|such|"
    r"above|former|latter|ones?|there|else|other|another|more|steps?|again)\b", re.I)
_REFER_ZH = re.compile(r"(它|它们|他们|她们|这个|那个|这些|那些|其|该|上述|此|这种|那种|这样|"
                       r"那样|刚才|上面|前面|还|如果|那么|另外|其他|呢[？?]?$)")
_START_EN = re.compile(r"^\s*(and|but|also|so|then|what about|how about|what if|why|"
                       r"is that|are those|is this|are these|any other)\b", re.I)
_START_ZH = re.compile(r"^\s*(那|那么|还有|另外|如果|要是|而且|并且|但是|可是|为什么)")

_TIME = re.compile(r"(20\d\d\s*年?\s*(?:第?[一二三四1-4]\s*季度|Q[1-4]|[01]?\d\s*月)?|"
                   r"Q[1-4]\s*20\d\d|(?:first|second|third|fourth)\s+quarter(?:\s+of\s+20\d\d)?|"
                   r"上个?月|本月|今年|去年|上季度|本季度|last\s+(?:month|quarter|year))", re.I)
_METRIC = re.compile(r"(退货率|转化率|增长率|占比|收入|营收|成本|延迟|可用性|"
                     r"rate|revenue|latency|availability|cost|count|ratio|percentage)", re.I)

MAX_BORROWED = 4


def is_followup(question: str, history: list[Turn]) -> bool:
    """Does ``question`` lean on earlier turns (pronouns, ellipsis, a very short question)?

    A long question with its own topic is standalone even if it says "该" or "that"."""
    if not history or is_chitchat(question):
        return False
    terms = content_terms(question)
    n_terms = len(terms)
    if language_of(question) == "zh":
        if _START_ZH.match(question) or (_REFER_ZH.search(question) and n_terms <= 4):
            return True
        # Chinese words are compounds: "第三季度退货率是多少" is two terms and a whole new
        # question. Two terms lean on the thread only when one of them is already its topic.
        if n_terms == 2:
            return bool(set(terms) & set(topic_terms(history, limit=8)))
        return n_terms <= 1
    elif _START_EN.match(question) or (_REFER_EN.search(question) and n_terms <= 4):
        return True
    return n_terms <= 2


def topic_terms(history: list[Turn], limit: int = 4) -> list[str]:
    """What the thread is about: terms that recur across its questions, those of the
    question that opened it and of the latest one, and the title the last answer cited."""
    score: dict[str, float] = {}
    order: list[str] = []

    def add(term: str, weight: float) -> None:
        if term not in score:
            order.append(term)
        score[term] = score.get(term, 0.0) + weight

    for turn in history[-4:]:
        for term in turn["entities"]:
            add(term, 1.0)
    for term in history[0]["entities"]:
        add(term, 1.0)
    for term in history[-1]["entities"]:
        add(term, 0.5)
    last = history[-1]
    if not last["refused"]:
        for doc in last["cited"][:1]:
            for term in content_terms(doc["title"]):
                add(term, 1.0)
    ranked = sorted(order, key=lambda t: (-score[t], order.index(t)))
    return ranked[:limit]


def understand(inp: UnderstandInput) -> Understanding:
    question = inp["question"].strip()
    history = inp["history"]
    language = language_of(question)
    entities = content_terms(question)
    follow = is_followup(question, history)
    borrowed: list[str] = []
    query = question
    if follow:
        present = norm(question)
        borrowed = [t for t in topic_terms(history) if norm(t) not in present][:MAX_BORROWED]
        if borrowed:
            sep = "，" if language == "zh" else " "
            query = (sep.join(borrowed) + sep + question) if language == "zh" else (
                question + " " + " ".join(borrowed))
    time_match = _TIME.search(query)
    return Understanding(
        query=query,
        language=language,
        is_followup=follow,
        entities=entities + [b for b in borrowed if b not in entities],
        expansions=[],  # the KB's glossary adds them (agent.nodes.understand)
        time_range=time_match.group(0) if time_match else None,
        metrics=list(dict.fromkeys(m.group(0) for m in _METRIC.finditer(query))),
        implicit_context=borrowed,
    )
