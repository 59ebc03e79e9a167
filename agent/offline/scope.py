"""Sentences about the document itself: what it covers, who it is for, when to use it.

"本规范适用于生产环境的 PostgreSQL 与 MySQL 实例，规定备份策略……", "This policy sets the limits
for business travel", "Use this runbook when a laptop is lost": a document's opening sentence
names its topic in the topic's own words, so it matches a question about any detail of that
topic better than the sentence holding the detail. It answers only a question about the
document's scope ("适用于哪些人", "who does it apply to", "when should I use it").
"""

from __future__ import annotations

import re

_DOCUMENT_ZH = (r"(?:规范|制度|政策|规定|办法|文件|文档|手册|指南|流程|预案|方案|"
                r"通知|说明|本文|条例)")
_DOCUMENT_EN = (r"(?:policy|document|handbook|runbook|guide|guideline|page|faq|procedure|"
                r"process|report|note|notes|standard|playbook|manual|checklist)")
# The document speaking of itself, at the start of a sentence: "本制度适用于…", "本文说明…",
# "This handbook explains…", "Use this runbook when…".
_SELF = re.compile(
    rf"^\s*(?:本{_DOCUMENT_ZH}|本文|以下(?:整理|列出|说明)|下面(?:整理|列出|说明)|"
    rf"(?:this|the following) {_DOCUMENT_EN}\b|(?:use|read|follow) this {_DOCUMENT_EN}\b)",
    re.I)
# A sentence that says when its steps apply and announces them ("当 Pod 状态为 … 时，按以下
# 步骤处理。", "If the VPN drops, follow the steps below."): the document's scope again, at its
# end; it names the case in the case's words and tells nothing of what to do.
_ANNOUNCES = re.compile(
    r"(?:按|依|照|参照|参考)(?:照)?(?:以下|下列|下面|如下)的?(?:步骤|流程|方法|顺序|措施|说明)"
    r"(?:进行)?(?:处理|执行|操作|排查|办理|处置)?\s*[。.!！]?\s*$|"
    r"\b(?:follow|use|take|see) the (?:steps|procedure|process|instructions) below\s*[.!]?\s*$|"
    r"\bas follows\s*[.:]?\s*$", re.I)
# A question about the scope or purpose of a document.
_ASKS_SCOPE = re.compile(
    r"(适用|范围|目的|用途|针对|什么情况下(?:用|使用|参考)|什么时候(?:用|使用|参考)|"
    r"\bappl(?:y|ies|icable)\b|\bscope\b|\bpurpose\b|\bcover(?:s|ed)?\b|\bwho is (?:it|this)\b|"
    r"\bwhen (?:should|do|would|can|must) (?:i|we|you) (?:use|follow|read)\b)", re.I)


def describes_document(sentence: str) -> bool:
    """Whether ``sentence`` is the document speaking of itself (its scope or purpose)."""
    return bool(_SELF.match(sentence) or _ANNOUNCES.search(sentence))


def asks_scope(question: str) -> bool:
    """Whether ``question`` asks what a document covers, whom it applies to or when to use
    it: the one kind of question a self-describing sentence answers."""
    return bool(_ASKS_SCOPE.search(question))
