"""The kind of value a question asks for, read in either language of the documents.

``agent.offline.asked`` reads the asked value in the question's own words ("几天" wants
"8天"). A Chinese question about an English document is answered by "two days a week", an
English question about a Chinese one by "3 个月": the kind of value is the same in both
languages, only its writing differs. So a count of days, weeks or months, an amount of
money and a
date ("什么时候" / "when": "9月28日", "by the 5th of each month") are matched as either
language writes them. This module only reads the question's shape; it names no document.
"""

from __future__ import annotations

import re

from agent.offline.asked import value_pattern
from agent.text import term_set

_ZH_NUM = "[0-9０-９一二两三四五六七八九十百千万半]"
_EN_NUM = (r"(?:\d[\d,.]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
           r"twelve|fifteen|twenty|thirty|sixty|ninety)\b)")
# A measure word of a Chinese question and how either language writes a value in it.
_UNITS = {
    "天": (r"天|个?工作日", r"(?:business\s+|working\s+|calendar\s+)?days?"),
    "日": (r"天|个?工作日", r"(?:business\s+|working\s+|calendar\s+)?days?"),
    "周": (r"周|星期", r"weeks?"),
    "星期": (r"周|星期", r"weeks?"),
    "个月": (r"个?月", r"months?"),
    "月": (r"个?月", r"months?"),
    "年": (r"年", r"years?"),
    "小时": (r"小时|个小时", r"hours?"),
    "分钟": (r"分钟", r"minutes?"),
    "次": (r"次", r"times|once|twice"),
    "人": (r"人|名|位", r"people|persons?|employees?|staff"),
}
_MONEY_ZH = rf"{_ZH_NUM}+\s*(?:万|千)?\s*(?:元|块|人民币)|[¥￥]\s*\d"
_MONEY_EN = (r"(?:CNY|RMB|USD|EUR|US\$|\$|¥|￥)\s*\d|"
             r"\d[\d,.]*\s*(?:yuan|dollars?|CNY|RMB|USD)\b")
_MONEY = f"{_MONEY_ZH}|{_MONEY_EN}"
_DURATION = ("天", "周", "个月", "年", "小时", "分钟")
# "<a process> time" ("response time", "ack time", "处理时效") asks how long, not when.
_PROCESS_TIME = re.compile(r"\b(?:response|ack|acknowledge?ment|resolution|processing|turnaround|"
                           r"lead|waiting|wait|recovery|approval|review)\s+times?\b|"
                           r"(?:响应|处理|审批|审核|恢复|办理)(?:时效|时长|时间)", re.I)
_ZH_ASK = re.compile(r"(?:几|多少)个?(天|日|周|星期|个月|月|年|小时|分钟|次|人|元|块|钱)"
                     r"|多久|多长时间")
_EN_ASK = re.compile(r"\bhow\s+(many|much|long|often)\b(?:\s+([a-z]+))?", re.I)
# A noun that names a sum of money asks for an amount when the question asks its size with
# no measure word of its own: "值班补贴是多少？", "门票价格多少", "What is the on-call
# allowance?" ("工资几号发" asks a day: 几 is read with its measure word first).
_MONEY_NOUN_ZH = re.compile(r"(补贴|津贴|补助|工资|薪资|薪水|薪酬|奖金|费用|价格|票价|售价|报酬|"
                            r"罚款|押金|金额)(?:的?(?:标准|上限|金额))?\s*(?:是|为|有|大概|一般|大约)*"
                            r"多少(?!个?(?:天|日|周|星期|个?月|年|小时|分钟|次|人|倍|岁|页|台|张|条|份|家))")
_MONEY_NOUN_EN = re.compile(r"\bwhat(?:'s| is| are| was| were)\s+(?:the|my|our|a|an)\s+"
                            r"(?:[\w-]+\s+){0,3}?(?:allowances?|stipends?|per diems?|fees?|"
                            r"prices?|costs?|salary|salaries|bonus(?:es)?|fines?|"
                            r"deposits?)\b", re.I)
_EN_NOUNS = {"day": "天", "days": "天", "week": "周", "weeks": "周", "month": "个月",
             "months": "个月", "year": "年", "years": "年", "hour": "小时", "hours": "小时",
             "minute": "分钟", "minutes": "分钟", "times": "次", "people": "人",
             "persons": "人", "employees": "人"}
# "什么时候", "何时", "哪天", "when", "what date": a date or a time of day answers.
_WHEN = re.compile(r"(什么时候|何时|哪天|哪一天|几号|几点|什么时间|"
                   r"\bwhen\b|\bwhat\s+(?:date|day|time)\b)", re.I)
# A day of the month alone ("每月 10 日", "15号") answers "几号" as a full date does.
_DATE = (r"(\d{1,2}\s*月\s*\d{1,2}\s*[日号]|(?<![\d.])\d{1,2}\s*[日号](?!\d)|[0-2]?\d:\d\d|"
         # a time of day in words: "早上 9 点", "下午三点半", "9 am"
         r"(?<![\d.])[0-2]?\d\s*点(?![几多])|[上下]午\s*[一二三四五六七八九十]{1,2}点|"
         r"\b[01]?\d\s*(?:a\.?m\.?|p\.?m\.?)(?!\w)|"
         r"周[一二三四五六日天]|"
         r"星期[一二三四五六日天]|"
         r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}\b|"
         # the day first, as British and most non-US English write it: "12 January 2027"
         # ("May" capitalised: "under 12 may attend" is no date)
         r"\b\d{1,2}\s+(?:January|February|March|April|(?-i:May)|June|July|August|September|"
         r"October|November|December|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?)"
         r"(?![a-z])|"
         r"\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|"
         r"\b20\d\d-\d\d-\d\d\b|"
         # a year stated as the time of something: after a time preposition or opening a
         # clause ("发生于1807年", "1990年，…", "in 1998"), not a label ("现将 2026 年放假…")
         r"(?:[于在从自至到]|^|[，,。；;]\s*)\s*(?:1\d|20)\d\d(?:\s*[－–~至到-]\s*(?:1\d|20)\d\d)?\s*年|"
         r"\b(?:in|since|from|until|by|during)\s+(?:early\s+|late\s+|mid-)?(?:1[5-9]|20)\d\d\b)")


def _either(unit: str) -> str:
    zh, en = _UNITS[unit]
    return rf"(?:{_ZH_NUM}\s*(?:{zh})|{_EN_NUM}[\s-]+(?:{en})\b)"


def _asked_unit(question: str) -> str | None:
    """The measure ``question`` asks in: a key of ``_UNITS``, "money", "duration" (any unit
    of time), or ``None``."""
    if _MONEY_NOUN_ZH.search(question) or _MONEY_NOUN_EN.search(question):
        return "money"
    m = _ZH_ASK.search(question)
    if m:
        unit = m.group(1)
        return "duration" if unit is None else "money" if unit in ("元", "块", "钱") else unit
    m = _EN_ASK.search(question)
    if m is None:
        return "duration" if _PROCESS_TIME.search(question) else None
    kind, noun = m.group(1).lower(), (m.group(2) or "").lower()
    if noun in _EN_NOUNS:
        return _EN_NOUNS[noun]
    return {"much": "money", "long": "duration"}.get(kind)


def _measure_pattern(question: str) -> str | None:
    """Both languages' writing of the count or amount ``question`` asks for, if any."""
    unit = _asked_unit(question)
    if unit == "money":
        return _MONEY
    if unit == "duration":
        return "|".join(_either(u) for u in _DURATION)
    return None if unit is None else _either(unit)


# "为什么" / "why": a cause answers, said with a causal connective.
# ("被称为什么", "改名为什么": there "为" is the verb and "什么" the name asked for.)
_WHY = re.compile(r"((?<![称名改成作视译定选列封叫认当类化变转])为什么|为啥|怎么会|什么原因|何故|"
                  r"\bwhy\b|\bhow come\b|\bwhat caused\b)", re.I)
# A cause is said before its effect too: "…不知道是同一颗星，因此…", "故障，致使…无法…",
# "…, so the tunnel drops", "which is why".
_CAUSE = (r"因为|由于|导致|造成|所致|原因是|因此|因而|所以|致使|以致|[，,]\s*故|"
          r"\bbecause\b|\bdue to\b|\bcaused by\b|\bowing to\b|\bas a result\b|"
          r"\bresult(?:s|ed)? from\b|\btherefore\b|\bhence\b|\bthus\b|\bwhich is why\b|"
          r"\bled to\b|, so\b")
# A section whose heading names reasons lists causes, one an item ("Top return reasons").
_REASON_HEADING = re.compile(r"(原因|根因|起因|\breasons?\b|\bcauses?\b|\bwhy\b)", re.I)
# Whether the asker pays: "要自己付钱吗", "收费吗", "Will I have to pay for it?", "Is it free?";
# or whether someone else does: "Does the company cover the cost?", "公司承担吗".
_PAY = re.compile(r"(付钱|付费|收费|自费|自付|出钱|掏钱|赔钱|谁(?:来)?(?:买单|承担)|由谁承担|"
                  r"(?:公司|单位)(?:会|能)?(?:承担|负担|出钱)|"
                  r"\b(?:have|need) to pay\b|\bwho pays\b|\bpay for\b|\bbe charged\b|"
                  r"\bcover(?:s|ed)?\s+(?:the\s+|my\s+|its\s+|their\s+)?(?:costs?|expenses?|"
                  r"bill|fees?|price)\b|\b(?:is|are) (?:it|they|this|that) covered\b|"
                  r"\b(?:is|are) (?:it|they|this|that|the [\w -]{1,30}) free\b)", re.I)
# Who bears a cost: what is covered, charged, paid or reimbursed ("由公司承担", "is covered by
# the company", "may be charged to the employee"), or free.
_COST = (r"承担|报销|免费|自付|自费|收费|扣除|赔偿|费用由|\bcover(?:s|ed)?\b|\bcharged?\b|"
         r"\bpaid\b|\bpays?\b|\bfree\b|\breimburs\w*")


def asking_words(question: str) -> frozenset[str]:
    """The words by which ``question`` asks who pays or why ("cover the cost", "付钱", "what
    caused"): they name the kind of answer, not what it is about. "Refunds cost CNY 2
    million" holds an amount and "cost", and says nothing of a stolen bike; "Repeated losses
    caused by negligence" gives a cause, not of an outage."""
    return frozenset(t for pattern in (_PAY, _WHY) for m in pattern.finditer(question)
                     for t in term_set(m.group(0)))


def asked_value(question: str) -> re.Pattern[str] | None:
    """A pattern a sentence in either language matches when it holds the kind of value
    ``question`` asks for ("2 天" or "two days" for "几天"; "CNY 550" or "550 元" for "多少钱";
    a date for "什么时候"), or ``None`` when it asks for no such value."""
    own = value_pattern(question)
    parts = [own.pattern] if own is not None else []
    measure = _measure_pattern(question)
    if measure is not None:
        parts.append(measure)
    if _PAY.search(question):
        parts.extend(p for p in (_COST, _MONEY) if p not in parts)
    if not parts and _WHY.search(question):
        parts.append(_CAUSE)
    if not parts and _WHEN.search(question):
        parts.append(_DATE)
    if not parts:
        return None
    return re.compile("|".join(f"(?:{p})" for p in parts), re.I)


def asked_section(question: str) -> re.Pattern[str] | None:
    """A pattern the heading of a section matches when each item under it holds the kind of
    answer ``question`` asks for (a "why" question and a list under "常见原因" / "Top
    reasons"), or ``None``."""
    return _REASON_HEADING if _WHY.search(question) else None
