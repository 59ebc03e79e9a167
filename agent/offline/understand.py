"""Offline ``understand``: detect follow-ups and resolve them from the thread's topic."""

from __future__ import annotations

import re

from agent.offline.ellipsis import restated_terms, substitute
from agent.offline.route import is_chitchat
from agent.offline.topic import (
    SHORT,
    asks_again,
    has_pronoun,
    last_answered,
    refers_back,
    rewrite,
    topic_terms,
)
from agent.state import ThreadContext, TopicEvidence, Turn, Understanding, UnderstandInput
from agent.text import content_terms, norm
from agent.wording import standard_chinese
from store.tokenize import language_of

_TIME = re.compile(r"(20\d\d\s*年?\s*(?:第?[一二三四1-4]\s*季度|Q[1-4]|[01]?\d\s*月)?|"
                   r"Q[1-4]\s*20\d\d|(?:first|second|third|fourth)\s+quarter(?:\s+of\s+20\d\d)?|"
                   r"上个?月|本月|今年|去年|上季度|本季度|last\s+(?:month|quarter|year))", re.I)
# The asker did what the latest answer said and it did not help: "still high", "already
# tried that", "didn't work", "还是不行", "试过了".
_TRIED = re.compile(
    r"(\bstill (?:high|low|full|failing|fails|broken|down|slow|happening|there|the same|not|"
    r"getting|seeing|throwing|throws|stuck)\b|\balready (?:tried|did|done|checked)\b|"
    r"\b(?:tried|did|done|checked) (?:that|those|it|them|this|these|all of)\b|"
    r"\b(?:did|does|do)(?: not|n't) (?:work|help|fix)\b|\bno luck\b|"
    r"(?:还是|仍然|依然)(?:不行|没用|报错|一样|很高|很慢|失败|连不上|打不开)|没有?用(?![过于来在的])|"
    r"不管用|不起作用|"
    r"试过|都做了|做过了|照做了|查过了|检查过)", re.I)
_METRIC = re.compile(r"(退货率|转化率|增长率|占比|收入|营收|成本|延迟|可用性|"
                     r"rate|revenue|latency|availability|cost|count|ratio|percentage)", re.I)


def is_followup(question: str, history: list[Turn],
                evidence: TopicEvidence | None = None) -> bool:
    """Does ``question`` lean on earlier turns?

    A pronoun, "what about …" or a phrase closed by 呢 makes it one; "对了" / "by the way"
    makes it a new topic. Otherwise the search of the question alone decides when it was run
    (``evidence``): a question whose own words retrieve a passage holding them names its own
    topic, unless it also says "this"/"also" and found the thread's own document; a short
    one whose words find nothing convincing leans on the thread. An opening that joins it to
    the conversation ("and", "那", "如果") counts only when the rest names no topic of its
    own: more than two words of it found together. Without that evidence, an opening or a
    question of one or two words leans on the thread."""
    if not history or is_chitchat(question):
        return False
    question = standard_chinese(question)  # "咋处理" asks as "怎么处理" does
    language = language_of(question)
    terms = content_terms(question)
    cue = refers_back(question, language, len(terms))
    if cue in ("firm", "new"):
        return cue == "firm"
    if evidence is not None:
        if cue == "weak":
            return evidence["overlap"] or not evidence["confident"]
        if cue == "glue":
            return not (evidence["confident"] and len(terms) > SHORT)
        return not evidence["confident"] and len(terms) <= SHORT
    return cue is not None or _short(terms, language, history)


def _short(terms: list[str], language: str, history: list[Turn]) -> bool:
    """Without a search to go by: is the question too short to name a topic of its own?"""
    if language == "zh" and len(terms) == 2:
        # Chinese words are compounds: "第三季度退货率是多少" is two terms and a whole new
        # question. Two terms lean on the thread only when one of them is already its topic.
        return bool(set(terms) & set(topic_terms(history, limit=8)))
    return len(terms) <= (1 if language == "zh" else 2)


def understand(inp: UnderstandInput) -> Understanding:
    question = inp["question"].strip()
    history = inp["history"]
    language = language_of(question)
    entities = content_terms(question)
    follow = is_followup(question, history, inp.get("evidence"))
    borrowed: list[str] = []
    query = standard_chinese(question)  # "放了几天假" is searched as 放假
    previous = last_answered(history)
    slot = (substitute(question, language, previous["rewritten"])
            if follow and previous is not None and not has_pronoun(question, language)
            else None)
    if slot is not None:
        # The earlier question with the new value in its slot: every word of it is what
        # this turn asks, none merely carried along.
        query = slot
        entities = restated_terms(question, language, slot)
    elif follow:
        present = norm(question)
        borrowed = [t for t in topic_terms(history, language=language,
                                           parallel=asks_again(question, language))
                    if norm(t) not in present]
        query = rewrite(query, language, borrowed)
    time_match = _TIME.search(query)
    u = Understanding(
        query=query,
        language=language,
        is_followup=follow,
        entities=entities + [b for b in borrowed if b not in entities],
        expansions=[],  # the KB's glossary adds them (agent.nodes.understand)
        time_range=time_match.group(0) if time_match else None,
        metrics=list(dict.fromkeys(m.group(0) for m in _METRIC.finditer(query))),
        implicit_context=borrowed,
    )
    if slot is not None:
        u["restated"] = slot
    if follow and previous is not None and _TRIED.search(question):
        u["tried"] = previous["answer"]
    if borrowed and previous is not None:
        u["carried_from"] = [d["doc_id"] for d in previous["cited"]]
    if not follow and previous is not None:
        own = {norm(t) for t in entities}
        u["thread_context"] = ThreadContext(
            words=[t for t in topic_terms(history, language=language) if norm(t) not in own],
            doc_ids=[d["doc_id"] for d in previous["cited"]])
    return u
