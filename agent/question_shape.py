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


# Asking how to do something: "怎么办" / "如何" / "how do I", or a request for the procedure
# ("步骤", "the process for"). Not "怎样的" (what kind of). "怎么 + verb" stays out: "怎么优化"
# asks for the fix that fits one case, often a table row, more than a list of steps (tried:
# samplekb half A lost one answer that way).
_HOW = re.compile(
    r"(怎么办|怎么做|怎么处理|如何|怎样(?!的)[\u4e00-\u9fff]|步骤|流程|"
    r"\bhow (?:do|to|can|should|would|could|does one)\b|\bsteps\b|\bprocedure\b|"
    r"\bwhat should\b|\bwhat (?:do|must) (?:i|we) (?:do|need to do)\b|"
    r"\bwhat(?:'s| is) the process\b|\bprocess (?:for|to|of)\b|\bwalk me through\b)", re.I)
# Or the asker says they mean to act ("我想请假", "想申请一台显示器", "I need to reset my
# token"), which asks for the way to do it; an intent to learn ("我想知道…", "I want to know…")
# asks a fact instead.
_INTENT = re.compile(
    r"(^\s*(?:我|我们|本人)?(?:想要|想|打算|准备)|^\s*(?:我|我们|本人)(?:要|需要))"
    r"(?!知道|了解|问|咨询|确认|看看|查|是)[\u4e00-\u9fff]|"
    r"^\s*(?:i|we)(?:'d| would)? (?:want|need|like|have|wanna)(?: to)? "
    r"(?!to\b|know\b|understand\b|ask\b|check\b|see\b|find out\b|learn\b|confirm\b)\w+", re.I)
# ...unless it also asks a fact about it ("我想请假，要提前几天？", "I want to travel, how much…").
_FACT_ASKED = re.compile(r"(几|多少|多久|多长|多大|什么|哪|谁|是否|\bhow (?:many|much|long|soon)\b|"
                         r"\bwhat\b|\bwhich\b|\bwho\b|\bwhen\b|\bwhether\b)", re.I)


def is_procedural(question: str) -> bool:
    """Asks how to do something, so the answer is a procedure's steps."""
    if _HOW.search(question):
        return True
    return bool(_INTENT.search(question)) and not _FACT_ASKED.search(question)


# Any how-question, "怎么优化" and "how can I…" too, but not how much, many, long or often.
# "会怎样" / "将如何" ask what follows, not how to do it (agent.offline.answer_kinds).
_ASKS_HOW = re.compile(r"((?<![会将])(?:怎么|怎样|如何)|"
                       r"\bhow\b(?!\s+(?:many|much|long|often|old|far|soon|big|"
                       r"large|fast|late|early)\b))", re.I)


def asks_how(question: str) -> bool:
    """Asks how something is done, in any form (a wider net than ``is_procedural``)."""
    return bool(_ASKS_HOW.search(question))


# What things someone must do or bring: the object asked is a set ("What must a new
# supplier provide?", "What do I need to bring on day one?", "入职要带哪些材料？",
# "报销需要提交什么？").
_ASKS_THINGS = re.compile(
    r"(^\s*what\s+(?:do|does|must|should|shall|will|would)\s+(?:\w+\s+){1,4}?"
    r"(?:provide|bring|submit|prepare|include|send|fill in|fill out|hand in|sign)\b|"
    r"(?:提供|提交|准备|携带|带|填写|签署)(?:哪些|什么)|哪些(?:材料|资料|文件|证件|东西))", re.I)


def asks_things(question: str) -> bool:
    """Asks what things are to be provided, brought or submitted: a list answers."""
    return bool(_ASKS_THINGS.search(question))


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
