"""The kind of value a question asks for, and whether a sentence carries one.

"When does the Harbor office open?" is answered by a time, "报销单由谁审批？" by a person or a
role, "婚假有几天？" by a number of days. A sentence that repeats the question's topic words
without such a value ("The Harbor office is open for deliveries.") does not answer it, however
many words it shares. The kinds are read from how questions are asked; the values from how
documents write times, roles, amounts and counts. The value must be something the question
does not already say: "几天" is not answered by a sentence whose only "天" is in "天数".
"""

from __future__ import annotations

import re
from typing import Literal

import rjieba

from agent.offline.asked import asks_share

Kind = Literal["time", "person", "duration", "amount", "percent", "number"]

_EN_NUMBER = (r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
              r"twenty|thirty|forty|fifty|hundred|thousand|million|half|once|twice|a|an|"
              r"single|double|unlimited)\b")
_NUMBER_WORD = rf"(?:\d[\d,.]*|[0-9０-９一二两三四五六七八九十百千万半]+|{_EN_NUMBER})"
_TIME_UNIT = (r"(?:(?:business |working |calendar )?(?:days?|weeks?|months?|years?|hours?|"
              r"minutes?|seconds?|nights?)\b|个?(?:工作日|自然日|天|日|周|星期|月|年|小时|"
              r"分钟|秒|晚))")
# An end point answers "how long" too ("lasts until the audit closes", "直到审计结束").
_DURATION = re.compile(rf"{_NUMBER_WORD}[\s-]*{_TIME_UNIT}|半天|全天|当天|\bovernight\b|"
                       r"\b(?:until|till|indefinitely|permanently)\b|直到|为止|长期|永久", re.I)
_MONTHS = (r"january|february|march|april|may|june|july|august|september|october|november|"
           r"december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekends?|weekdays?"
_TIME = re.compile(
    rf"\b(?:{_MONTHS}|{_DAYS})\b|\d{{1,2}}[:：]\d{{2}}|\b\d{{1,2}}\s*(?:am|pm)\b|"
    r"\b\d{4}-\d{1,2}\b|\bQ[1-4]\b|"
    r"\b(?:today|tomorrow|tonight|daily|weekly|monthly|quarterly|yearly|annually|every|each|"
    r"before|after|within|until|by the|during|once|as soon as|in advance|ahead|prior|"
    r"end of|start of|beginning of|morning|afternoon|evening|noon|midnight|immediately|"
    r"if|whenever|when)\b|"
    r"[0-9０-９一二三四五六七八九十]+\s*[年月日号点时]|[0-9０-９一二三四五六七八九十]+\s*(?:世纪|年代)|"
    r"周[一二三四五六日末]|星期|工作日|季度|夜间|白天|清晨|傍晚|深夜|[春夏秋冬]季|"
    r"上午|下午|晚上|中午|凌晨|每[天日周月年季]|之前|以前|提前|之后|以后|以内|之内|期间|"
    r"当天|当日|次日|月底|月初|年底|年初|截止|如果|一旦|立即|马上", re.I)
_PERSON = re.compile(
    r"\b(?:manager|managers|head|lead|leader|director|owner|admins?|administrator|team|"
    r"desk|department|dept|finance|legal|security|committee|board|officer|engineers?|supervisor|"
    r"on-call|primary|secondary|assistant|receptionist|"
    r"reception|coordinator|specialist|staff|employees?|yourself|contact|colleague|"
    r"people team|service desk|helpdesk|rotation|rota|on duty|whoever|everyone|anyone)\b|"
    r"[@#][\w-]+|\S+@\S+\.\w+|"
    r"上级|领导|经理|主管|总监|负责人|联系人|部门|(?<![全内外局])部(?!分)|组长|小组|团队|中心|"
    r"办公室|委员会|专员|管理员|值班|同事|本人|员工|人事|人力|财务|行政|法务|前台|客服|老板|"
    r"总裁|秘书|助理|工程师|值日|轮值|轮换|排班|每人|所有人", re.I)
# Acronyms of roles and a person's full name are read with their case ("it" is no role).
_PERSON_CASED = re.compile(r"\b(?:HR|IT|VP|CEO|CFO|CTO|COO|SRE|DBA)\b|"
                           r"\b[A-Z][a-z]+ [A-Z][a-z]+\b")
_NAME_TAGS = frozenset(["nr", "nrt", "nrfg"])
_CJK_WORD = re.compile(r"[\u4e00-\u9fff]{2,4}")
_AMOUNT = re.compile(r"(?:CNY|RMB|USD|EUR|\$|¥|￥)\s*\d|\d[\d,.]*\s*(?:元|块|万|千|yuan|dollars?|"
                     r"CNY|RMB|USD|EUR)|\bfree\b|免费|不收费|\bno (?:cost|charge|fee)\b", re.I)
_PERCENT = re.compile(r"\d+(?:\.\d+)?\s*(?:%|％|percent\b)|百分之|[一二三四五六七八九]成", re.I)
_NUMBER = re.compile(_NUMBER_WORD.replace(r"|a|an|", "|"), re.I)

_PATTERNS: dict[Kind, re.Pattern[str]] = {
    "time": _TIME, "person": _PERSON, "duration": _DURATION, "amount": _AMOUNT,
    "percent": _PERCENT, "number": _NUMBER,
}

# How each kind is asked. "When" counts only where it opens the question (or a clause of
# it): "what happens when the disk is full" asks what happens, not when.
_ASKS_TIME = re.compile(
    r"(?:^|[,;，；]\s*)(?:and |but |so )?when\b|\bwhat (?:time|date|day)\b|\bwhich (?:day|date|"
    r"month|week)s?\b|\bby when\b|\bhow soon\b|\bdeadline\b|"
    r"什么时候|何时|哪天|哪一天|哪几天|几号|几点|哪个月|几月|什么时间|截止(?:日期|时间)", re.I)
# "Who" asks for a person where it opens the question or a clause ("employees who have
# finished probation" only describes the subject).
_ASKS_PERSON = re.compile(r"(?:^|[,;，；]\s*)(?:and |but |so )?(?:who|whom|whose)\b|"
                          r"\b(?:to|with|from) whom\b|\bwhich (?:team|department|person|manager)\b|"
                          r"谁|哪位|负责人是|联系人是|哪个部门|哪个团队", re.I)
_ASKS_DURATION = re.compile(
    r"\bhow long\b|\bhow many (?:days|weeks|months|years|hours|minutes|nights)\b|"
    r"多久|多长时间|几(?:个)?(?:天|周|星期|月|年|小时|分钟|晚)|"
    r"多少(?:个)?(?:天|周|小时|分钟)", re.I)
_ASKS_AMOUNT = re.compile(r"\bhow much (?:does|do|did|will|would|is|are|was|money)\b.*?"
                          r"\b(?:cost|costs|price|fee|pay|charge|spend|worth)\b|"
                          r"\bwhat (?:does|do|did) .* cost\b|多少钱|价格是多少|费用是多少", re.I)
_ASKS_NUMBER = re.compile(r"\bhow (?:many|much)\b|几|多少|\bwhat is the (?:limit|maximum|"
                          r"minimum)\b", re.I)


# In the order they are tried: "哪几天" asks for dates before "几天" for a count; "who"
# comes last, since "employees who…" in a counting question only describes the subject.
_ASKS: list[tuple[Kind, re.Pattern[str]]] = [
    ("time", _ASKS_TIME), ("duration", _ASKS_DURATION), ("amount", _ASKS_AMOUNT),
    ("number", _ASKS_NUMBER), ("person", _ASKS_PERSON),
]


def asked_kind(question: str) -> Kind | None:
    """The kind of value ``question`` asks for, or ``None`` (a "how do I", a yes/no, a
    "what is")."""
    if asks_share(question):
        return "percent"
    return next((kind for kind, asks in _ASKS if asks.search(question.strip())), None)


# A count of days is answered in days or weeks, not by "within a year" (the span it must be
# taken in); hours by hours or days; months and years by months, years or weeks.
_UNITS = {
    "short": r"小时|分钟|秒|hours?|minutes?|seconds?",
    "mid": r"工作日|自然日|天|日|周|星期|晚|(?:business |working |calendar )?days?|weeks?|nights?",
    "long": r"月|年|months?|years?",
}
_ACCEPTS = {"short": ("short", "mid"), "mid": ("mid",), "long": ("long", "mid")}


def _asked_units(question: str) -> re.Pattern[str] | None:
    """Durations in the units ``question`` counts in ("几天", "how many weeks"), if it names
    one."""
    m = re.search(r"(?:几|多少)\s*个?\s*(小时|分钟|天|周|星期|月|年|晚)|"
                  r"\bhow many (hours|minutes|days|weeks|months|years|nights)\b", question, re.I)
    if m is None:
        return None
    unit = (m.group(1) or m.group(2)).lower()
    group = next(g for g, units in _UNITS.items() if re.fullmatch(units, unit))
    accepted = "|".join(_UNITS[g] for g in _ACCEPTS[group])
    return re.compile(rf"{_NUMBER_WORD}[\s-]*个?\s*(?:{accepted})|半天", re.I)


def carries(kind: Kind, sentence: str, question: str) -> bool:
    """Whether ``sentence`` holds a value of ``kind`` that ``question`` does not already
    say (its own words are the topic, not the answer)."""
    asked = _flat(question)
    units = _asked_units(question) if kind == "duration" else None
    found = [m.group(0) for m in (units or _PATTERNS[kind]).finditer(sentence)]
    if kind == "person":
        found += [m.group(0) for m in _PERSON_CASED.finditer(sentence)]
        # A Chinese personal name ("王小明负责审批"): jieba tags it, or finds a word its
        # dictionary lacks ("与林古度登泰山"); names are the words a dictionary lacks.
        found += [w for w, tag in rjieba.tag(sentence)
                  if tag in _NAME_TAGS or (_CJK_WORD.fullmatch(w) and not rjieba.has_word(w))]
    return any(_flat(v) not in asked for v in found if v.strip())


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text.casefold())
