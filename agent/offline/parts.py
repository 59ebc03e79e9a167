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


def question_parts(question: str) -> list[str]:
    """The parts of a question that asks two or more things ("…占多少？…怎么处理？"), each
    with enough words of its own; ``[]`` for a question in one part."""
    parts = [p.strip() for p in _PART_END.split(question.strip()) if p.strip()]
    if len(parts) < 2 or any(len(content_terms(p)) < MIN_PART_TERMS for p in parts):
        return []
    return parts


def asks_which_document(question: str) -> bool:
    """Whether the question asks which plan, policy or runbook to follow."""
    return bool(_WHICH_DOC.search(question))


def title_answer(passage: Passage, n: int, language: str) -> Sentence:
    """The document's title as the answer to "which document" (quoted the asker's way)."""
    title = passage["title"].strip()
    return Sentence(text=f"《{title}》" if language == "zh" else title, cites=[n])
