"""Questions in two parts, and questions that ask which document to follow.

"上季度工单平均多久关闭？超时的工单按什么规则升级？" asks two things that two
documents answer; scoring sentences by all of its words together picks sentences that hold
a bit of both and answer neither. Each part is answered from its own best sentence, in the
order asked. A part that asks which document to follow ("该参考哪个应急预案", "which runbook
covers…") is answered by the document's title.
"""

from __future__ import annotations

import re

from agent.state import Passage, Sentence
from agent.text import content_terms

# A question mark (or a Chinese full stop) that ends one part of a longer question.
_PART_END = re.compile(r"(?<=[？?。])\s*")
# A part needs this many topic words of its own to be answered on its own.
MIN_PART_TERMS = 2
_WHICH_DOC = re.compile(
    r"(哪个|哪份|哪一个|哪一份|什么)\s*[\u4e00-\u9fff]{0,4}?(预案|手册|文档|制度|政策|规定|规范|指南|流程)|"
    r"\bwhich\s+(?:\w+\s+){0,2}?(runbook|policy|document|guide|manual|handbook|playbook)\b",
    re.I)


# Two questions in one sentence: "How much is parking, and can visitors park on site?",
# "差旅住宿标准是多少，超标了找谁审批？": a comma or "and" before a clause that asks again.
# ("do" is left out: "…affect the Earth and do damage" goes on with a verb, not a question)
_EN_ASKS = (r"(?:who|whom|what|when|where|which|why|how|can|could|does|did|is|are|should|"
            r"must|will|would|may)\b")
# After a bare comma "which", "who", "when" and "where" open a relative clause, not a question.
_EN_AFTER_COMMA = r"(?:how|what|can|could|do|does|did|is|are|should|must|will|would|may)\b"
_EN_JOIN = re.compile(rf"\s*,?\s+and\s+(?={_EN_ASKS})|\s*,\s*(?={_EN_AFTER_COMMA})", re.I)
_ZH_JOIN = re.compile(r"\s*[，,]\s*")
# "几" asks before a measure word only ("几天"; "几内亚" is a name).
_ZH_ASKS = re.compile(r"(谁|什么|怎么|怎样|如何|多少|多久|"
                      r"几(?=[个天年月日周次人位名点号岁台张份条家种])|"
                      r"哪|是否|能否|可否|[吗呢][？?]?$)")
_EN_OPENS = re.compile(rf"^\s*(?:do\b|{_EN_ASKS})", re.I)


def _clauses(part: str) -> list[str]:
    """``part`` cut where a clause that asks follows one that asked: each clause asks. Only a
    question that ends asking is cut (a title with commas in it is not two questions)."""
    if not part.rstrip().endswith(("?", "？")):
        return [part]
    if _EN_OPENS.match(part):
        pieces = _EN_JOIN.split(part)
    else:
        pieces = _ZH_JOIN.split(part)
        if not all(_ZH_ASKS.search(p) for p in pieces):
            return [part]
    return [p.strip() for p in pieces if p.strip()]


def question_parts(question: str) -> list[str]:
    """The parts of a question that asks two or more things ("…占多少？…怎么处理？",
    "How much is X, and can I Y?"), each with enough words of its own, or one thing of each
    of two named items ("A和B分别…"); ``[]`` for a question in one part."""
    members = member_parts(question)
    if members:
        return members
    parts = [p.strip() for p in _PART_END.split(question.strip()) if p.strip()]
    if len(parts) < 2:
        parts = [c for p in parts for c in _clauses(p)]
    if len(parts) < 2 or any(len(content_terms(p)) < MIN_PART_TERMS for p in parts):
        return respective_parts(question)
    return parts


# Two periods or editions of one series, side by side: "2025年和2026年", "2025年12月和2026年6月",
# "第八届和第九届", "一期和二期", "the 2025 or the 2026". Both members have the same shape.
_NUM = "[0-9一二两三四五六七八九十百]"
_MEMBER = (rf"(?:(?<![0-9.])(?:19|20)\d\d\s*年(?:\s*\d{{1,2}}\s*月)?|第\s*{_NUM}{{1,4}}\s*[届期季]|"
           rf"(?<!{_NUM}){_NUM}{{1,3}}\s*期|(?<![0-9.])(?:19|20)\d\d(?![0-9]))")
_MEMBER_PAIR = re.compile(rf"(?P<a>{_MEMBER})(?P<join>\s*(?:和|与|及|跟|还是|或者?|、)\s*|"
                          rf"\s+(?:and|or)\s+(?:the\s+)?)(?P<b>{_MEMBER})", re.I)
# The question asks something of each member: each one's value, or which one is more.
_EACH_WORD = re.compile(r"分别|各自|\s*,?\s*\brespectively\b", re.I)
_OF_EACH = re.compile(r"分别|各|哪|还是|更|\b(?:respectively|each|which|both)\b", re.I)


def member_parts(question: str) -> list[str]:
    """"2025年和2026年的花灯节，哪一届的主灯组更高？" → the question asked of 2025年 and the
    one asked of 2026年, in that order; ``[]`` unless two members of one shape (years,
    months, editions, phases) are joined and the question asks of each or compares them.
    Each part keeps one member, so the period fit of ``agent.offline.ranking`` picks that
    member's own sentence rather than its near-duplicate."""
    m = _MEMBER_PAIR.search(question)
    if m is None or not _OF_EACH.search(question[:m.start()] + question[m.end():]):
        return []
    if re.sub(_NUM, "", m["a"]).strip() != re.sub(_NUM, "", m["b"]).strip():
        return []
    first = question[:m.start("join")] + question[m.end("b"):]
    second = question[:m.start("a")] + question[m.start("b"):]
    return [_EACH_WORD.sub("", p).strip() for p in (first, second)]


# "A和B分别…", "A and B respectively": one question asked of each of two items.
_EACH = {"分别", "各自", "respectively"}
_AND = {"和", "与", "及", "跟", "以及", "、", "and"}
_ARTICLES = {"the", "a", "an", "our", "my", "your"}
# Parallel items share their head word ("一线城市和二线城市", "guest network and staff
# network"); at most this many words are taken as one item.
MAX_ITEM_WORDS = 3


def respective_parts(question: str) -> list[str]:
    """"北京和深圳办公室的前台电话分别是多少？" → the question about 北京 and the one about
    深圳 ("北京办公室的前台电话是多少？", …); ``[]`` unless the question says "分别" /
    "respectively" after two items joined by "和" / "and"."""
    import rjieba

    toks = list(rjieba.cut(question))
    words = [i for i, t in enumerate(toks) if t.strip()]
    each = next((i for i in words if toks[i].casefold() in _EACH), None)
    if each is None:
        return []
    joins = [i for i in words if i < each and toks[i].casefold() in _AND]
    if not joins:
        return []
    c = joins[-1]
    before = [i for i in words if i < c]
    after = [i for i in words if c < i < each]
    skip = 1 if after and toks[after[0]].casefold() in _ARTICLES else 0
    k = next((j for j in range(MAX_ITEM_WORDS, 1, -1)
              if len(before) >= j and len(after) >= skip + j
              and toks[before[-1]].casefold() == toks[after[skip + j - 1]].casefold()), 1)
    if not before or len(after) < skip + k:
        return []
    x_start, y_end = before[-k], after[skip + k - 1]
    # "分别" itself goes, with the space and comma before it ("…, respectively").
    drop_each = {each}
    while each - len(drop_each) > c and toks[each - len(drop_each)].strip() in ("", ",", "，"):
        drop_each.add(each - len(drop_each))
    # The part about the first item loses the conjunction and the second item; the part
    # about the second loses the first item and the conjunction.
    first = "".join(t for i, t in enumerate(toks)
                    if not (before[-1] < i <= y_end) and i not in drop_each)
    second = "".join(t for i, t in enumerate(toks)
                     if not (x_start <= i <= (after[skip] - 1 if skip else c)
                             or (skip == 0 and c < i < after[0])) and i not in drop_each)
    parts = [first.strip(), second.strip()]
    own = [set(content_terms(p)) - set(content_terms(q)) for p, q in (parts, parts[::-1])]
    return parts if all(own) else []


def asks_which_document(question: str) -> bool:
    """Whether the question asks which plan, policy or runbook to follow."""
    return bool(_WHICH_DOC.search(question))


def title_answer(passage: Passage, n: int, language: str) -> Sentence:
    """The document's title as the answer to "which document" (quoted the asker's way)."""
    title = passage["title"].strip()
    return Sentence(text=f"《{title}》" if language == "zh" else title, cites=[n])
