"""What a question asks for and what it holds fixed: the kind of value, the year, a name.

"国庆放几天假" asks for a count of days; a sentence naming the holiday's freeze dates holds the
same topic words but not the value. "2025 年的预算" fixes the year; a passage about 2026 is
about something else; so does a name ("the hotel limit in Singapore") or a numbered member of a
series ("Tier 3 cities"): documents naming other places or tiers answer about something else.
These are read from the question's shape, not from any document.
"""

from __future__ import annotations

import re

from agent.wording import spelled_out
from store.tokenize import chinese_names, chinese_organisations, chinese_people

# Chinese: 几/多少 + measure word ("几天", "多少个人", "多少钱").
_ZH_MEASURE = re.compile(r"(?:几|多少)个?(天|年|个月|月|周|次|人|元|块|页|台|张|条|份|家|小时|分钟|"
                         r"倍|岁|钱|公里|米|辆)")
# English: "how many <noun>", "how long" (a duration), "how much" (an amount).
_EN_MANY = re.compile(r"\bhow many\s+([a-z]+)", re.I)
_EN_LONG = re.compile(r"\bhow long\b", re.I)
_EN_MUCH = re.compile(r"\bhow much\b", re.I)
# A share of a whole ("占多少", "what share of", "what percentage"): the value is a percentage.
_SHARE = re.compile(r"(占多少|占比|比例是多少|百分之几|"
                    r"\bwhat (?:share|percentage|percent|proportion|fraction)\b|"
                    r"\bhow many percent\b)", re.I)
_ZH_NUM = "[0-9０-９一二两三四五六七八九十百千万]"
_DURATION = r"(?:days?|weeks?|months?|years?|hours?|minutes?|天|周|个月|年|小时|分钟)"
_MONEY = r"(?:CNY|RMB|USD|\$|¥|元|块|%|percent)"
_YEAR = re.compile(r"(?<!\d)(20\d\d)(?!\d)")
# Nouns that name a measured amount: a question about one asks for its value, which only a
# passage naming the same measure can hold ("营收" is not held by a return-rate table).
_MEASURE = re.compile(r"(营收|收入|利润|毛利|预算|薪资|工资|薪酬|售价|市值|估值|"
                      r"\b(?:revenues?|profits?|margins?|budgets?|salary|salaries|earnings|"
                      r"turnover|valuation|payroll)\b)", re.I)


def value_pattern(question: str) -> re.Pattern[str] | None:
    """A pattern a sentence holding the asked-for value matches ("8天" for "几天", "11%" for
    "占多少"), or ``None`` when the question asks for no countable value."""
    if _SHARE.search(question):
        return re.compile(r"\d+(?:\.\d+)?\s*(?:%|％|percent\b)", re.I)
    m = _ZH_MEASURE.search(question)
    if m:
        unit = {"钱": _MONEY, "块": r"(?:块|元)", "元": _MONEY}.get(m.group(1), m.group(1))
        # "3 个月" as well as "3月": a measure word may sit between number and unit.
        return re.compile(rf"{_ZH_NUM}\s*个?\s*{unit}")
    m = _EN_MANY.search(question)
    if m:
        noun = m.group(1).lower().rstrip("s")
        return re.compile(rf"(\d[\d,.]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten))"
                          rf"\s+(?:\w+\s+)?{re.escape(noun)}", re.I)
    if _EN_LONG.search(question):
        return re.compile(rf"(\d[\d,.]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten))"
                          rf"[\s-]*{_DURATION}", re.I)
    if _EN_MUCH.search(question):
        return re.compile(rf"({_MONEY}\s*\d|\d[\d,.]*\s*{_MONEY})", re.I)
    return None


# A deadline ("until when can I claim it", "by when", "截止到什么时候", "最晚哪天交"): the answer
# is the limit, which documents give as a date or as a period counted from an event
# ("within your first year", "within 60 days of the trip", "6 个月内", "返岗后 3 个工作日内").
_ASKS_DEADLINE = re.compile(r"(\buntil when\b|\bby when\b|\bhow late\b|\bdeadlines?\b|"
                            r"\b(?:what|which) is the (?:last|latest) (?:day|date)\b|"
                            r"截止|截至|最晚|最迟|(?:什么时候|何时|哪天)(?:之前|以前|前)|"
                            r"多久(?:之内|以内|内)|多长时间(?:之内|以内|内))", re.I)
_DEADLINE = (r"(\b(?:within|in the first|during the first|no later than)\s+(?:\w+\s+){0,3}?"
             r"(?:days?|weeks?|months?|years?|quarters?|hours?)\b|"
             r"\b(?:by|before|until|no later than)\s+(?:the\s+)?(?:end of|\d|"
             r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b)|"
             r"(?:天|日|周|个月|月|年|季度|小时|工作日)\s*(?:之内|以内|内)|"
             r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]\s*(?:之前|以前|前)|"
             r"(?:至|到|截至|截止)\s*(?:次年|当年|同年|\d{4}\s*年)?\s*\d{1,2}\s*月|"
             rf"(?:{_ZH_NUM}\s*[日号]|底|末)\s*(?:之前|以前|前))")


def deadline_pattern(question: str) -> re.Pattern[str] | None:
    """A pattern a sentence giving a deadline matches (a period "within your first year",
    "3 个工作日内", or a date "before 31 March", "3 月 31 日前") when ``question`` asks until
    when something may be done; ``None`` otherwise."""
    if not _ASKS_DEADLINE.search(question):
        return None
    return re.compile(_DEADLINE, re.I)


# "用啥命令", "看日志的命令是什么", "what command shows…", "which command do I run": the answer
# is a command line, which documents set in code formatting (a code block, or `inline`).
# "下达命令" (an order) asks no such thing: 命令 counts after an asking word, or as the subject
# asked about ("命令是什么").
_ASKS_COMMAND = re.compile(
    r"((?:什么|啥|哪个|哪条|哪一条|哪些|哪句)\s*(?:命令|指令|command)|(?:命令|指令)\s*(?:是|叫)\s*(?:什么|啥)|"
    r"(?:用|跑|敲|执行|输入|运行)\s*(?:什么|啥|哪个|哪条)|"
    r"\b(?:what|which)\s+(?:\w+\s+)?(?:commands?|cmds?)\b|\bcommands?\s+(?:to|for)\b|"
    r"\bwhat do (?:i|we|you) (?:type|run)\b)", re.I)
# A code span or line that reads as a command: a program name and arguments ("kubectl logs
# <pod> --previous", "`CONFIG SET maxmemory-policy allkeys-lru`"), not a lone word (`maxmemory`).
_INLINE_COMMAND = re.compile(r"`[A-Za-z][\w.-]*(?: +[^`\s]+)+`")
# A line of a code block: a program, then arguments at least one of which is an option, a
# placeholder, a path or a setting ("-n <ns>", "--tail=200", "/etc/hosts").
_COMMAND_LINE = re.compile(r"^\s*(?:\$\s*)?[a-z][\w.-]*(?: +[^\s\u4e00-\u9fff]+)+\s*$")
_ARGUMENT = re.compile(r"(?:^|\s)(?:--?[A-Za-z]|<[^>]+>|[./~][\w./-]|\S+=)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def asks_command(question: str) -> bool:
    """Whether ``question`` asks which command to run ("看上一次的日志用啥命令")."""
    return bool(_ASKS_COMMAND.search(question))


def holds_command(sentence: str) -> bool:
    """Whether ``sentence`` is or holds a command: a line of a code block, or a code span of
    a program and its arguments. A fence line ("```bash") is none."""
    if _FENCE.match(sentence):
        return False
    return bool(_INLINE_COMMAND.search(sentence)
                or (_COMMAND_LINE.match(sentence) and _ARGUMENT.search(sentence)))


# "是什么意思", "啥意思", "指什么", "what does X mean", "what is meant by": the answer is what a
# term, a code or a status means, which documents say with a word of meaning ("含义" as a
# table's column, "表示", "即", "means", "stands for").
_ASKS_MEANING = re.compile(r"(什么意思|啥意思|(?:指|代表|表示|意味着)(?:什么|啥)|含义是|"
                           r"\bwhat (?:does|do|did) .{1,40}\bmean\b|\bwhat is meant by\b|"
                           r"\bmeaning of\b|\bstands? for\b)", re.I)
_MEANING = re.compile(r"(含义|意思|意味着|意为|意指|表示|代表|是指|指的是|即|"
                      r"\bmeans?\b|\bmeaning\b|\bstands? for\b|\brefers? to\b|"
                      r"\bindicates?\b)", re.I)


def asks_meaning(question: str) -> bool:
    """Whether ``question`` asks what something means ("exit code 137 是什么意思")."""
    return bool(_ASKS_MEANING.search(question))


def holds_meaning(sentence: str) -> bool:
    """Whether ``sentence`` says what something means (a table row under "含义", "… means …")."""
    return bool(_MEANING.search(sentence))


# A count of a unit per period ("two days a week", "每周 2 天", "5 天/月") is a rate: it
# answers "how many days a week", not "how long is probation" (a duration of its own). A
# count asked as a count ("病假有多少天") is answered by a yearly allowance all the same.
_PERIOD = r"(?:day|week|month|year|quarter|天|日|周|星期|月|年|季度)"
_RATE_AFTER = re.compile(rf"^\s*(?:(?:a|an|per|each|every)\s+{_PERIOD}|/\s*{_PERIOD})", re.I)
_RATE_BEFORE = re.compile(rf"(?:每个?|一个?){_PERIOD}[^，,。；;]{{0,8}}$")
_ASKS_RATE = re.compile(rf"(?:\b(?:a|an|per|each|every)\s+{_PERIOD}\b|每个?{_PERIOD}|"
                        rf"一个?{_PERIOD}(?:能|可以|可|最多|有)|"
                        rf"\bweekly\b|\bmonthly\b|\byearly\b|\bannually\b)", re.I)
_ASKS_DURATION = re.compile(r"(多久|多长时间|多长|\bhow long\b|\bduration\b)", re.I)


def holds_value(value: re.Pattern[str], sentence: str, question: str) -> bool:
    """Whether ``sentence`` holds the value ``value`` matches, a count per period not
    counting when ``question`` asks how long something lasts unless it asks for a rate
    ("每周几天" yes, "试用期多久" no, "病假有多少天" yes)."""
    rate_asked = bool(_ASKS_RATE.search(question)) or not _ASKS_DURATION.search(question)
    for m in value.finditer(sentence):
        rate = (_RATE_AFTER.match(sentence[m.end():])
                or _RATE_BEFORE.search(sentence[:m.start()]))
        if rate_asked or not rate:
            return True
    return False


_COMMAND_WORDS = frozenset(["命令", "指令", "command", "commands", "cmd", "cmds"])
_MEANING_WORDS = frozenset(["意思", "含义", "mean", "means", "meaning", "意味着"])


def kind_words(question: str) -> frozenset[str]:
    """The words by which ``question`` names the kind of answer it asks for ("命令" when it
    asks for a command, "意思" for a meaning): they say what kind of sentence answers, not
    what the answer is about."""
    return ((_COMMAND_WORDS if asks_command(question) else frozenset())
            | (_MEANING_WORDS if asks_meaning(question) else frozenset()))


def measures(question: str) -> list[str]:
    """The measured amounts ``question`` names ("total revenue" -> "revenue")."""
    return list(dict.fromkeys(m.group(0).lower() for m in _MEASURE.finditer(question)))


def years(text: str) -> set[str]:
    """The years ``text`` names ("2026")."""
    return set(_YEAR.findall(text))


# A capitalised word inside a sentence names something: a place, a person, a product
# ("the hotel limit in Singapore", "Is Mario Mars ..."). Four letters or more: shorter ones
# and all-capital acronyms are too often typed variants or abbreviations the documents spell
# out. Day and month names are dates, not names.
_NAME = re.compile(r"\b[A-Z][a-z]{3,}\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;…\"'(“‘])\s*$")
_NOT_NAMES = frozenset([
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays",
    "january", "february", "march", "april", "june", "july", "august", "september",
    "october", "november", "december",
])
# A numbered member of a series: "Tier 3", "Level 2", "Building 5", "Phase 1".
_SERIES = re.compile(r"\b(tier|level|grade|phase|floor|building|room|version|stage|zone|"
                     r"terminal|gate|band)[ -]?(\d{1,3})(?![\d.,:]\d)", re.I)


# A name glossed in the other script ("Qinglan New Energy (青岚新能)", "青岚新能（Qinglan
# New Energy）"): the asker wrote one name twice, and documents in one language hold only one
# of its forms, so the Latin words of such a pair are no name of their own to look for.
_CJK_CHAR = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_GLOSSED = re.compile(rf"(?:[A-Z][\w&.'-]*\s+)*[A-Z][\w&.'-]*\s*[(（]\s*{_CJK_CHAR}"
                      rf"|{_CJK_CHAR}\s*[(（][^)）]*[)）]")


# A company, hospital or case named in full ("Harlow Freight Ltd", "Kestrel Bay Hospital",
# "Dunmore v Pike"): each capitalised word of it is a name, even the one that opens the
# question, which a capital alone does not make one.
_FULL_NAME = re.compile(r"(?:[A-Z][\w&'-]*\s+)*[A-Z][\w&'-]*\s+(?:Ltd|Limited|Inc|plc|PLC|LLC|LLP|"
                        r"Corp|Corporation|Co|Holdings|Group|Hospital|Clinic|Bank|University)\b"
                        r"|(?:[A-Z][\w&'-]*\s+)*[A-Z][\w&'-]*\s+v\.?\s+[A-Z]")


def _glossed_words(question: str) -> set[str]:
    return {w.lower() for m in _GLOSSED.finditer(question) for w in _NAME.findall(m.group(0))}


def names(question: str) -> list[str]:
    """The names ``question`` holds: capitalised words (four letters or more) that do not
    start a sentence, lower-cased ("Is there a Singapore office?" -> "singapore"), and
    Chinese words jieba tags as names of places or organisations ("新加坡的住宿标准" ->
    "新加坡"). A Latin name glossed in Chinese beside it ("Qinglan (青岚)") is left out."""
    out: dict[str, None] = {}
    glossed = _glossed_words(question)
    full = {w.lower() for m in _FULL_NAME.finditer(question) for w in _NAME.findall(m.group(0))}
    for m in _NAME.finditer(question):
        word = m.group(0).lower()
        if (word not in _NOT_NAMES and word not in glossed
                and (word in full or not _SENTENCE_START.search(question[:m.start()]))):
            out.setdefault(word, None)
    for word in chinese_names(question):
        out.setdefault(word, None)
    return list(out)


def entities(question: str) -> list[tuple[str, str]]:
    """The persons and organisations ``question`` names in Chinese, each as (the name as
    written, the part a document naming it must hold): "患者赵国庆" -> ("赵国庆", "赵国庆"),
    "宁波海之星物流股份有限公司" -> (the full name, "海之星"). A document may write a company
    by its short name ("海之星物流") or without its place; never without its core."""
    out = chinese_organisations(question)
    # jieba tags some companies' cores as persons ("蓝鲸"): the full name is what is asked.
    out.extend((person, person) for person in chinese_people(question)
               if not any(person in name for name, _ in out))
    return out


def designations(question: str) -> list[tuple[str, str]]:
    """The numbered members of a series ``question`` names ("Tier 3 cities" ->
    ``[("tier", "3")]``)."""
    return list(dict.fromkeys((m.group(1).lower(), m.group(2))
                              for m in _SERIES.finditer(question)))


def names_designation(designation: tuple[str, str], text: str) -> bool:
    """Whether ``text`` names ``designation`` ("Tier 3", "tier-3", "TIER3")."""
    word, number = designation
    return re.search(rf"\b{word}[ -]?{number}(?!\d)", text, re.I) is not None


# A code mixing letters and digits names one model, plan or item ("Aurora X2", "MX-500",
# "3D printing", "Q4"). A number with a lower-case unit or ordinal is a quantity ("24h",
# "10am", "5th"), written otherwise by documents ("24 hours"), and so is a number joined to
# the word it counts ("4-letter", "3-day", "24-hour": a compound adjective); "<@U2>" and
# "#ops2" are a chat's mentions, not codes.
_CODE = re.compile(r"(?<![A-Za-z0-9@#-])(?=[A-Za-z0-9-]*[A-Za-z])(?=[A-Za-z0-9-]*\d)"
                   r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![A-Za-z0-9-])")
_QUANTITY = re.compile(r"^\d+(?:am|pm|h|hr|hrs|min|mins|ms|s|d|k|m|km|kg|g|gb|mb|kb|tb|x|st|"
                       r"nd|rd|th|-[a-z]{2,})$")


def codes(question: str) -> list[str]:
    """The codes ``question`` names, as written ("Is the MX-500 covered?" -> "MX-500"); a
    short form of a word ("2fa" for two-factor, "b4") is none."""
    return list(dict.fromkeys(m.group(0) for m in _CODE.finditer(question)
                              if not _QUANTITY.match(m.group(0))
                              and not spelled_out(m.group(0))))


def names_code(code: str, text: str) -> bool:
    """Whether ``text`` names ``code``, in any case, with a space or none for its hyphens
    ("MX-500", "mx 500", "MX500"), or, for a grade or level ("P4", "L3"), a range of its
    series that holds it ("P1–P5", "P3 及以上", "L2 and above")."""
    parts = [re.escape(p) for p in code.split("-")]
    pattern = r"(?<![A-Za-z0-9])" + r"[ -]?".join(parts) + r"(?![A-Za-z0-9])"
    return re.search(pattern, text, re.I) is not None or _in_range(code, text)


# A grade or level: letters, then a number ("P4", "L3", "T2").
_GRADE = re.compile(r"([A-Za-z]{1,3})-?(\d{1,3})")


def _in_range(code: str, text: str) -> bool:
    """Whether ``text`` gives a range of ``code``'s series that holds it: tables of grades
    write "P1–P5" or "P6 及以上", not each grade."""
    grade = _GRADE.fullmatch(code)
    if grade is None:
        return False
    prefix, n = re.escape(grade.group(1)), int(grade.group(2))
    edge = rf"(?<![A-Za-z0-9]){prefix}-?(\d{{1,3}})"
    for m in re.finditer(rf"{edge}\s*(?:[–—~-]|至|到|to)\s*(?:{prefix}-?)?(\d{{1,3}})(?!\d)",
                         text, re.I):
        if int(m.group(1)) <= n <= int(m.group(2)):
            return True
    for m in re.finditer(rf"{edge}\s*(及以上|以上|and above|or above|or higher|\+|"
                         rf"及以下|以下|and below|or below|or lower)", text, re.I):
        bound, upward = int(m.group(1)), m.group(2).lower() in _UPWARD
        if (n >= bound) if upward else (n <= bound):
            return True
    return False


_UPWARD = frozenset(["及以上", "以上", "and above", "or above", "or higher", "+"])
