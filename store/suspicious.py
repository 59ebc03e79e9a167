"""Spans of a document that instruct its reader or an assistant rather than inform.

A document is data. A line such as "ignore all previous instructions", "send your password
to …" or a Slack broadcast ("<!channel>") is not something the bot should ever repeat to an
employee, whatever question it seems to answer. Ingest stores these spans with each chunk
(``chunks.suspicious``, shown by ``ragbot kb status``); the agent never quotes them.

A link on its own is not suspicious: documentation legitimately says "go to https://… to
reset your password". It counts only next to another signal (credentials, a broadcast, a
prize), which is how phishing reads.
"""

from __future__ import annotations

import re

# Words aimed at an assistant: override its instructions or dictate its output.
_ASSISTANT = re.compile(
    r"(\b(ignore|disregard|forget)\b[^.。\n]{0,20}\b(previous|prior|above|earlier|all)\b"
    r"[^.。\n]{0,20}\b(instructions?|prompts?|rules)\b|\bsystem prompt\b|"
    r"\b(reply|respond|answer) only\b|\b(reply|respond|answer) with only\b|"
    r"(忽略|无视)(之前|以上|上面|前面|所有)[^。\n]{0,10}(指令|指示|提示|规则)|系统提示词|"
    r"你现在是一个|只回复)", re.I)
# Asking readers to hand credentials to someone.
_CREDENTIALS = re.compile(
    r"(\b(send|share|forward|give|provide|email|dm|post)\b[^.。\n]{0,40}"
    r"\b(passwords?|passcodes?|credentials|verification codes?|one-time codes?|otp|"
    r"2fa codes?)\s+to\b|(把|将)[^。\n]{0,10}(密码|验证码|口令|动态码)[^。\n]{0,10}"
    r"(发给|发送给|告诉|提供给|转给))", re.I)
# Slack / Teams broadcast and mention markup: a document should never page people.
_MARKUP = re.compile(r"(<!(channel|here|everyone)>|<@[UW][A-Z0-9]+>|<at>|</at>)", re.I)
_LINK = re.compile(r"(https?://\S*(login|signin|sign-in|verify|account|password)\S*|"
                   r"\b(log ?in|sign ?in)\b[^.。\n]{0,20}\b(at|via|here)\b|登录[^。\n]{0,10}链接)",
                   re.I)
_LURE = re.compile(r"(\bprize\b|\bwinner\b|\breward\b|\bgift card\b|\burgent(ly)?\b|"
                   r"\bverify your account\b|中奖|奖品|礼品卡|紧急验证)", re.I)


def is_suspicious(text: str) -> bool:
    """Whether ``text`` instructs an assistant, asks for credentials, broadcasts, or lures
    readers to a login link."""
    if _ASSISTANT.search(text) or _CREDENTIALS.search(text) or _MARKUP.search(text):
        return True
    return bool(_LINK.search(text) and _LURE.search(text))


# Sentence ends: Chinese marks, or Latin ones before a space ("<!channel>" stays whole).
_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])\s+")


def suspicious_spans(text: str) -> list[str]:
    """The sentences of ``text`` that are suspicious, stripped, in document order (the
    ordinary sentences around an injected one stay quotable)."""
    return [span.strip() for line in text.splitlines() for span in _SENTENCE_END.split(line)
            if span.strip() and is_suspicious(span)]


def strip_markup(text: str) -> str:
    """``text`` without broadcast and mention markup."""
    return _MARKUP.sub("", text)
