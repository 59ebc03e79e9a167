"""How people write the same thing differently: chat spellings, compounds, comparisons.

A question typed in chat ("whats the weekly oncall allowance", "how long r accounts locked")
names its topic in other spellings than the handbook does ("on-call", "the account is
locked"). Term extraction reads the question through ``plain`` and a passage's words through
``variant_forms``, so that the spelling alone never makes a term look missing.
"""

from __future__ import annotations

import re

import contractions

from store.tokenize import dictionary_word

# Apostrophe-free contractions the library expands that are ordinary words too: "shell
# script" is not "she will script", a "root cause" not "root because", a "git diff" not a
# "git different".
_ORDINARY_WORDS = frozenset(["shell", "shed", "cause", "diff", "sos", "em", "ol", "hows"])
# Chat spellings of function words the library does not list ("wat do i do", "shud we",
# "b4 promoting", "w/ the 2fa app"), and words that only press for speed ("asap", "eod"):
# none names a topic.
_CHAT = {"r": "are", "pls": "please", "plz": "please", "thru": "through", "wat": "what",
         "wut": "what", "wot": "what", "shud": "should", "shd": "should", "wud": "would",
         "cud": "could", "cuz": "because", "coz": "because", "bc": "because", "b4": "before",
         "smth": "something", "sth": "something", "w/o": "without", "w/out": "without",
         "w/": "with", "asap": "", "eod": "", "lol": "", "tia": "", "fyi": "",
         "pl0x": "please"}
# Chat abbreviations of the words a handbook spells out ("min pwd length", "full db
# backups", "2fa", "20k yuan"): read as the handbook writes them, so that the word can be
# found, or translated, in the documents; a passage writing the short form holds the long
# one too (``variant_forms``). "min" / "max" after a number are minutes (``_MINUTES``).
ABBREVIATIONS = {"pwd": "password", "pw": "password", "passwd": "password",
                 "db": "database", "dbs": "databases", "2fa": "two-factor", "mfa": "two-factor",
                 "wfh": "work from home", "mgr": "manager", "acct": "account",
                 "dept": "department", "yr": "year", "yrs": "years", "wk": "week",
                 "wks": "weeks", "hrs": "hours", "mins": "minutes", "prod": "production",
                 "env": "environment", "config": "configuration", "repo": "repository",
                 "2nd": "second", "ppl": "people", "msg": "message", "approx": "about",
                 "min": "minimum", "max": "maximum"}
_SPELLED = {**_CHAT, **ABBREVIATIONS}
# "w/" and "w/o" end in a slash: no word boundary after them. A hyphen joins a code
# ("prod-access"), not a short form.
_CHAT_WORD = re.compile(r"(?<![\w/-])(" + "|".join(
    re.escape(w) for w in sorted(_SPELLED, key=len, reverse=True)) + r")(?!(?<!/)[\w/-])",
    re.IGNORECASE)
_ABBREVIATION = re.compile(r"(?<![\w/-])(" + "|".join(ABBREVIATIONS) + r")(?![\w/-])",
                           re.IGNORECASE)
_MINUTES = re.compile(r"(?<=\d)\s*(?:min|mins)\b", re.IGNORECASE)
# "20k", "1.5k": thousands, as documents write amounts.
_THOUSANDS = re.compile(r"\b(\d+(?:\.\d+)?)k\b", re.IGNORECASE)
# What the asker says to the bot about the asking, not about the topic: "quick q", "any
# idea", "asking for a friend", "remind me", "just wondering".
_DISCOURSE = re.compile(
    r"\b(?:(?:quick|short|dumb|silly|stupid|random)\s+(?:q|qn|question)\b|any\s+ideas?\b"
    r"|asking\s+for\s+a\s+friend\b|(?:remind|tell|show)\s+(?:me|us)\b"
    r"|(?:i\s+was\s+|just\s+)?wondering\b)", re.IGNORECASE)
# "how far ahead" asks how long before: the handbook says "in advance" (提前).
_AHEAD = re.compile(r"\bhow\s+far\s+ahead\b|\bahead\s+of\s+time\b", re.IGNORECASE)
# Colloquial Chinese question words, as the handbook writes them: 咋 is 怎么 (咋办, 咋处理),
# 啥 is 什么 (啥意思, 为啥, 干啥). Only these two: each has no other reading in a question.
_COLLOQUIAL_ZH = {"咋": "怎么", "啥": "什么"}
_COLLOQUIAL = re.compile("[咋啥]")
# Verb-object words that Chinese splits around an aspect or a quantity (离合词): "放了几天假"
# is 放假 for a few days, "请了三天假" 请假, "加了两个小时班" 加班, "出过一趟差" 出差. jieba
# reads the halves as lone characters, which are no topic words, so the question seemed to
# name no leave, overtime or trip. They are written joined, the quantity after them.
SEPARABLE = frozenset(("请假", "休假", "放假", "加班", "值班", "上班", "下班", "倒班", "换班",
                       "调班", "排班", "轮班", "出差", "开会", "打卡", "签字", "报名", "辞职",
                       "请客", "见面", "帮忙", "生病", "看病", "住院", "毕业", "结婚", "离婚"))
_VERBS = "".join(sorted({w[0] for w in SEPARABLE}))
_OBJECTS = "".join(sorted({w[1] for w in SEPARABLE}))
_SPLIT_WORD = re.compile(
    rf"([{_VERBS}])(了|过|着)?(?:([一二两三四五六七八九十百几多少半0-9]+)"
    r"(个小时|个钟头|个月|个晚上|个|小时|礼拜|星期|天|日|周|次|趟|回|晚|夜|年|上午|下午|晚上|"
    r"整天)|(个))?(的)?"
    rf"([{_OBJECTS}])")
_WORD = re.compile(r"[A-Za-z]+")

# The months' names, January first.
MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
               "september", "october", "november", "december")
# Months as chat abbreviates them ("the outage in aug", "since sept"): a document writes
# the month's name ("14 August 2026"), and a passage writing the short form holds the name
# too (``variant_forms``). "may" is its own name.
MONTHS = {"jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
          "jul": "july", "aug": "august", "sep": "september", "sept": "september",
          "oct": "october", "nov": "november", "dec": "december"}
_MONTH = re.compile(r"(?<![\w/-])(" + "|".join(MONTHS) + r")\b\.?", re.IGNORECASE)
# "once" opening a clause ("once I pass probation", "once the change is approved") is
# "when", a function word; "once a week" keeps it, a frequency.
_ONCE = re.compile(r"\bonce(?=\s+(?:i|you|we|they|he|she|it|the|my|our|your|their|this|that"
                   r"|someone|somebody|everyone|employees?|people)\b)", re.IGNORECASE)
# "why did the rollback take so long", "it took forever": the degree asks how long it
# took, like "how long" (``_HOW_MEASURE``); the verb stays, a passage says "took 14 min".
_SO_LONG = re.compile(r"\b(tak(?:e|es|en|ing)|took|last(?:s|ed|ing)?|wait(?:s|ed|ing)?)"
                      r"\s+(?:(?:so|that|this|too)\s+long|forever|ages)\b", re.IGNORECASE)
# Working away from the office, in the words an asker or a handbook uses: "wfh" and "work
# from home" (``ABBREVIATIONS``) name what a policy calls "remote work" or "working
# remotely", and the other way round (``variant_forms``).
_FROM_HOME = re.compile(r"\b(?:work(?:s|ed|ing)?\s+(?:from|at)\s+home|wfh)\b")
_REMOTELY = re.compile(r"\bremote(?:ly)?\s+work|\bwork(?:s|ed|ing)?\s+remotely\b")

# "how long / often / far / soon …" asks for a measure: the adjective is the question word,
# not the topic ("how long is probation" is about probation, not about length).
_HOW_MEASURE = re.compile(r"\bhow\s+(?:long|often|far|soon|big|large|old|early|late|fast)\b",
                          re.IGNORECASE)

# One term for "a value past a threshold", however it is phrased: "more than 20000 yuan",
# "above 20000", "over $500", "exceeding 3 days", "超过 2 万", "2 万元以上". "over" counts
# only before an amount ("over the weekend" is no comparison); "no more than", "not
# exceeding" and "不超过" state a ceiling, the opposite.
THRESHOLD = "above"
_EN_THRESHOLD = (r"(?<!\bno )(?<!\bnot )\b(?:(?:more|greater|higher|larger|bigger)\s+than|above"
                 r"|exceed(?:s|ed|ing)?|in\s+excess\s+of|over(?=\s*[$¥€£]?\s*\d))\b")
ZH_THRESHOLD_WORDS = frozenset(["超过", "超出", "以上", "高于", "大于", "多于"])
_ZH_THRESHOLD = "(?<!不)(?:" + "|".join(sorted(ZH_THRESHOLD_WORDS)) + ")"
_EN_PHRASE = re.compile(_EN_THRESHOLD, re.IGNORECASE)
_ANY_THRESHOLD = re.compile(_EN_THRESHOLD + "|" + _ZH_THRESHOLD, re.IGNORECASE)

# Two Latin words written apart or hyphenated ("on call", "on-call", "Wi-Fi", "log in").
_PAIR = re.compile(r"(?=\b([a-z]+)[ -]([a-z]+)\b)")
_HYPHENATED = re.compile(r"\b([A-Za-z]+)-(?=[A-Za-z]+\b)")


def _expand(match: re.Match[str]) -> str:
    word = match.group(0)
    if word.lower() in _ORDINARY_WORDS:
        return word
    return str(contractions.fix(word, slang=True))


def spelled_out(word: str) -> str | None:
    """What a chat spelling or short form stands for ("2fa" -> "two-factor"), if it is one."""
    return _SPELLED.get(word.lower())


def _spelled(match: re.Match[str]) -> str:
    short = match.group(1)
    # "w/the" is "with the": the slash stood between two words.
    return _SPELLED[short.lower()] + (" " if short.endswith("/") else "")


def _thousands(number: str) -> str:
    value = float(number) * 1000
    return str(int(value)) if value.is_integer() else number + "k"


def plain(text: str) -> str:
    """``text`` as the handbook would write it, for reading its terms: contractions and chat
    spellings expanded ("whats" -> "what is", "cant" -> "cannot", "u" -> "you",
    "r" -> "are"), hyphenated compounds closed ("on-call" -> "oncall", the form
    ``variant_forms`` gives every passage), an English threshold phrasing made
    ``THRESHOLD`` (a Chinese one stays a word of its own: jieba reads the sentence), and
    the adjective of "how long / how often" dropped (and "so long" after "take": it asks
    the same), a month's short form spelled out ("aug" -> "august"), "once" opening a
    clause read as "when", colloquial Chinese question words written out
    (``standard_chinese``)."""
    text = standard_chinese(text)
    text = _DISCOURSE.sub(" ", text)
    text = _AHEAD.sub("how far in advance", text)
    text = _MINUTES.sub(" minutes", text)
    text = _THOUSANDS.sub(lambda m: _thousands(m.group(1)), text)
    text = _CHAT_WORD.sub(_spelled, text)
    text = _MONTH.sub(lambda m: MONTHS[m.group(1).lower()], text)
    text = _ONCE.sub("when", text)
    text = _SO_LONG.sub(r"\1", text)
    text = re.sub(r"[A-Za-z]+(?:['’][A-Za-z]+)?", _expand, text)
    text = _HOW_MEASURE.sub("how", text)
    text = _EN_PHRASE.sub(THRESHOLD, text)
    return _HYPHENATED.sub(r"\1", text)


def standard_chinese(text: str) -> str:
    """``text`` with colloquial Chinese question words in their written form ("咋处理" ->
    "怎么处理", "退出码137啥意思" -> "退出码137什么意思"), so that the rules reading how a
    question asks (how-to, why, what is meant) and its terms see what they know."""
    return join_separable(_COLLOQUIAL.sub(lambda m: _COLLOQUIAL_ZH[m.group(0)], text))


def join_separable(text: str) -> str:
    """``text`` with each verb-object word split around an aspect or a quantity written
    joined, the quantity after it ("今年国庆放了几天假" -> "今年国庆放假几天", "请了个假" ->
    "请假"). Not where a half belongs to a word with its neighbour: "出了差错" is an error
    (差错), no trip; "参加了两小时会" no 加班."""
    out, last = [], 0
    for m in _SPLIT_WORD.finditer(text):
        verb, obj = m.start(1), m.start(7)
        if (m.group(1) + m.group(7) not in SEPARABLE or verb + 1 == obj
                or _word_with(text, verb - 1) or _word_with(text, obj)):
            continue
        out += [text[last:verb], m.group(1), m.group(7), (m.group(3) or "") + (m.group(4) or "")]
        last = m.end()
    return "".join(out) + text[last:]


def _word_with(text: str, at: int) -> bool:
    """Whether the characters at ``at`` and ``at + 1`` are one word of jieba's dictionary."""
    pair = text[at:at + 2] if at >= 0 else ""
    return len(pair) == 2 and dictionary_word(pair)


def variant_forms(text: str) -> set[str]:
    """Words ``text`` holds in another spelling: each pair of Latin words written apart or
    hyphenated, closed ("on call" / "on-call" give "oncall", "Wi-Fi" gives "wifi"), and
    ``THRESHOLD`` and its Chinese words when it states a value past a threshold in any
    phrasing ("20000 元以上" holds "超过" and "above"), the spelled-out form of a
    short one ("2FA" holds "twofactor") or of a month ("Aug" holds "august"), and working
    remotely in the other words for it ("work from home" holds "remote", "remote work"
    holds "home")."""
    lowered = text.lower()
    out = {a + b for a, b in _PAIR.findall(lowered)}
    # A text that writes the short form ("enter your 2FA code") holds the spelled-out word
    # a question is read by (``plain``: "2fa" -> "two-factor" -> "twofactor").
    out |= {ABBREVIATIONS[m.lower()].replace("-", "") for m in _ABBREVIATION.findall(lowered)}
    if _ANY_THRESHOLD.search(lowered):
        out |= ZH_THRESHOLD_WORDS | {THRESHOLD}
    out |= {MONTHS[m.lower()] for m in _MONTH.findall(lowered)}
    if _FROM_HOME.search(lowered):
        out |= {"remote", "remotely"}
    if _REMOTELY.search(lowered):
        out |= {"home"}
    return out
