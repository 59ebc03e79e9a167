"""Sentences that send the reader elsewhere, and following them.

"具体步骤见 *Lost or Stolen Laptop* 手册", "See the change-management policy", "This runbook
describes how a service is deployed": such a sentence matches the question's words well
because it names the topic, yet it answers nothing; the document it names does. So a pointer
ranks below sentences that say something, and a procedure is taken from the document a
matching pointer names when that document is in the pool.
"""

from __future__ import annotations

import re

from agent.offline.versions import names_document
from agent.state import Passage
from agent.text import split_sentences

# A section of the same document named by its number: "见第 4 节", "see section 4".
_SECTION = re.compile(r"(?:见第\s*(\d{1,2})\s*[节章条]|\bsee section\s+(\d{1,2})\b)", re.I)

_POINTER = re.compile(
    r"((?:另见|参见|详见|请见|具体见|步骤见|方法见|见)\s*(?:英文版|中文版)?\s*[*《“\"]|见第\s*\S{1,3}\s*[节章条]|"
    r"\bsee (?:the |our )?(?:[A-Z*\"“]|[\w-]+(?: [\w-]+){0,3} "
    r"(?:policy|faq|handbook|runbook|guide|manual|document|section|page)\b)|"
    r"\b(?:this |the )?(?:document|runbook|policy|handbook|guide|page|section)\b[^.;。；]{0,60}"
    r"\bdescribes\b)")


def is_pointer(sentence: str) -> bool:
    """Whether ``sentence`` refers the reader to another document or section."""
    return bool(_POINTER.search(sentence))


def pointed_documents(passages: list[Passage], doc_id: str) -> list[str]:
    """The other pool documents that pointers in ``doc_id``'s passages name, in order."""
    titles = {p["doc_id"]: p["title"] for p in passages if p["doc_id"] != doc_id}
    out: list[str] = []
    for p in passages:
        if p["doc_id"] != doc_id:
            continue
        for s in split_sentences(p["text"]):
            if is_pointer(s):
                out.extend(d for d, title in titles.items()
                           if title and d not in out and names_document(s, title))
    return out


def section_pointed(sentence: str) -> str | None:
    """The number of the section of its own document ``sentence`` sends the reader to
    ("内存碎片严重，见第 4 节", "see section 4"), or ``None``."""
    m = _SECTION.search(sentence)
    return (m.group(1) or m.group(2)) if m else None


def is_section(p: Passage, number: str) -> bool:
    """Passage ``p`` stands under the heading numbered ``number`` ("## 4. 内存碎片",
    "## 第4节 …", "### Section 4: …")."""
    return any(re.match(rf"\s*(?:第\s*|section\s+)?{number}(?![\d])", h, re.I)
               for h in p["heading_path"][1:])
