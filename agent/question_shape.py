"""What shape a question has (a greeting, a comparison, a relative clause), read from its
words alone: the offline engine's rules and the graph's nodes both ask this module."""

from __future__ import annotations

import re

_GREETING = re.compile(
    r"^\s*(hi|hello|hey|yo|good (morning|afternoon|evening)|thanks|thank you|thx|cheers|bye|"
    r"goodbye|who are you|what can you do|how are you|你好|您好|嗨|哈喽|在吗|早上好|下午好|"
    r"晚上好|谢谢|多谢|感谢|再见|拜拜|你是谁|你能做什么|你会什么)"
    r"[\s!！.。?？,，~～]*+(?:(bot|ragbot|机器人)[\s!！.。?？~～]*+)?$", re.I)
_COMPARE = re.compile(r"(对比|比较|区别|差异|不同之处|有何不同|有什么不同|相比|"
                      r"\bcompare\b|\bcomparison\b|\bvs\.?\b|\bversus\b|difference between|"
                      r"differ from|\bbetter than\b|哪个更|谁更|^(are|is|were|was|do|did|does)\b"
                      r"[^?]*\b(both|same)\b|^(who|which|what)\b[^?,]*,[^?]*\bor\b|"
                      r"^between\b)", re.I)
# Three words, then a relative word anywhere after them. Possessive, so the words are not
# re-split when there is none (the open form "(?:\S+\s+){3,}" tried every split).
_RELATIVE = re.compile(r"^\s*+(?:\S++\s++){3}.*\b(that|who|whom|which|whose|where|by a|by an|"
                       r"by the)\b", re.I | re.S)


def is_chitchat(question: str) -> bool:
    return bool(_GREETING.match(question))


def is_comparison(question: str) -> bool:
    return bool(_COMPARE.search(question))


def has_relative_clause(question: str) -> bool:
    """A clause about something the question does not name ("... the band that made Maiden
    Japan", "... produced by a man born in what year"): a bridge to find first."""
    return bool(_RELATIVE.search(question))


def is_composed(question: str) -> bool:
    """Whether answering takes more than one lookup: a comparison or a relative clause."""
    return is_comparison(question) or has_relative_clause(question)
