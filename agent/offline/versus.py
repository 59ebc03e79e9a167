"""Which of two named things is earlier, later, higher or lower: each one's value from its
own document, then the verdict from the two values.

"苏州联拓机电案和成都锦程置业租赁案，哪个案件判决得更早？", "A公司和B公司谁的营收更高",
"Which company reported higher revenue, X or Y?" name two entities of one kind and ask for
each one's value compared. One sentence ranked over the whole pool answers for one of them
only. Here each entity's document is the one whose title (else text) holds the name; the
value is read from that document's sentence that holds the asked thing (a date, an amount);
the verdict is said only when both values are found and comparable, else the answer says
which one is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent import messages
from agent.offline.pairs import comparison_parts
from agent.state import Passage, Sentence
from agent.text import char_ngrams, content_terms, norm, split_sentences
from agent.wording import MONTH_NAMES

Direction = Literal["earlier", "later", "higher", "lower", "difference"]

# What the question asks of the two: which is earlier / later / more / less.
_ZH_DIRECTION: list[tuple[Direction, re.Pattern[str]]] = [
    ("earlier", re.compile(r"更早|最早|早一些|先(?!生)|较早")),
    ("later", re.compile(r"更晚|最晚|晚一些|较晚|更迟|后完成")),
    ("higher", re.compile(r"更高|最高|更多|最多|更大|最大|更贵|更长|最长|较高|较多|较大|较长")),
    ("lower", re.compile(r"更低|最低|更少|最少|更小|最小|更便宜|更短|最短|较低|较少|较小|较短")),
]
_EN_DIRECTION: list[tuple[Direction, re.Pattern[str]]] = [
    ("earlier", re.compile(r"\b(earlier|earliest|first|sooner|before)\b", re.I)),
    ("later", re.compile(r"\b(later|latest|more recent|most recent)\b", re.I)),
    ("higher", re.compile(r"\b(higher|highest|more|most|larger|largest|bigger|biggest|"
                          r"greater|greatest|longer|longest)\b", re.I)),
    ("lower", re.compile(r"\b(lower|lowest|less|least|fewer|smaller|smallest|shorter|"
                         r"shortest)\b", re.I)),
]
# How far apart two amounts are: asked without picking one ("A和B的营收相差多少").
_ZH_DIFFERENCE = re.compile(r"相差|差(?:了|距)?(?:是)?多少|差距|差额|高出多少|多出多少|多了多少")
_EN_DIFFERENCE = re.compile(r"\bdifference (?:in|between)\b|\bhow much (?:more|higher|lower|"
                            r"less|larger|bigger)\b|\bby how much\b", re.I)
# The question picks one of the two ("哪个/哪家/谁", "which/who").
_ZH_PICK = re.compile(r"哪|谁")
_EN_PICK = re.compile(r"^\s*(which|who|whose)\b", re.I)
# Words between two names: "A和B", "A与B", "A还是B".
_ZH_JOIN = re.compile(r"和|与|跟|同|还是|或者|或|以及|及")
# Where a name ends after the join, or starts before it.
_ZH_AFTER = re.compile(r"[，,。？?！!；;：:（(]|哪|谁|的|都(?=[在是有于已])|分别|各自|相比|比较|"
                       r"之间|在|$")
_ZH_BEFORE = re.compile(r"[，,。？?！!；;：:）)]|请问|比较|对比")
# A period before the first name ("2025年华辰精密和明川数据…") is the time, not the name.
_LEAD_TIME = re.compile(r"^(?:(?:19|20)\d\d\s*年(?:\s*\d{1,2}\s*月)?(?:上半年|下半年|度)?的?)")
# Words of the question that ask, not what is compared.
_ASKING = re.compile(r"哪(?:个|家|笔|位|项|一|份|起|次|种)?|谁|更|最|先|较|案件|公司|"
                     r"\b(which|who|whose|company|one|case)\b", re.I)

_ZH_DIGIT = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
             "七": 7, "八": 8, "九": 9}
_MONTHS = {m: i for i, m in enumerate(MONTH_NAMES, start=1)}
_MONTH = "|".join(MONTH_NAMES)
_CN = "[〇零一二两三四五六七八九十]"
_DATE = re.compile(
    rf"(?P<y>(?:19|20)\d\d)\s*年\s*(?P<m>\d{{1,2}})\s*月(?:\s*(?P<d>\d{{1,2}})\s*日)?|"
    rf"(?P<cy>{_CN}{{4}})年(?P<cm>{_CN}{{1,3}})月(?:(?P<cd>{_CN}{{1,3}})日)?|"
    rf"(?P<ed>\d{{1,2}})\s+(?P<em>{_MONTH})\s+(?P<ey>(?:19|20)\d\d)|"
    rf"(?P<fm>{_MONTH})\s+(?P<fd>\d{{1,2}}),?\s+(?P<fy>(?:19|20)\d\d)|"
    r"(?P<iy>(?:19|20)\d\d)-(?P<im>\d\d)-(?P<id>\d\d)", re.I)
# An amount: a number with a scale and a currency or a unit ("9.8亿元", "1.2亿欧元",
# "US$118 million", "£311.7 million"); a bare number is a count or a code, not compared.
_SCALE = {"万": 1e4, "亿": 1e8, "千": 1e3, "百万": 1e6, "thousand": 1e3, "million": 1e6,
          "m": 1e6, "billion": 1e9, "bn": 1e9}
# A count or a measure compares too when both sides give it in one unit ("3200人", "16米",
# "27.8%"); a year, a month or a day is a date, not a measure.
_ZH_AMOUNT = re.compile(r"(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?P<s>百万|万|亿|千)?\s*"
                        r"(?P<c>元|美元|欧元|英镑|港元|日元|%|％|[人名家个辆吨米台件次户座股张天岁周]|"
                        r"平方米|公里|千米|千克|公斤|小时|分钟)")
_EN_AMOUNT = re.compile(r"(?P<c>US\$|\$|£|€|RMB|CNY|USD|EUR|GBP)\s?(?P<n>\d[\d,]*(?:\.\d+)?)"
                        r"(?:\s*(?P<s>thousand|million|billion|bn|m)\b)?|"
                        r"(?<![\d.])(?P<pn>\d[\d,]*(?:\.\d+)?)\s?(?P<pc>%|per cent|percent|"
                        r"days?|weeks?|years?|hours?|employees|staff|people|beds|vessels|"
                        r"stores|sites)\b", re.I)
_CURRENCY = {"$": "US$", "usd": "US$", "us$": "US$", "€": "欧元", "eur": "欧元", "£": "英镑",
             "gbp": "英镑", "rmb": "元", "cny": "元"}
# The document's own act: a judgment's date is the date it is signed with, on a line alone.
_OWN_ACT = {"判决": "判决", "宣判": "判决", "裁定": "裁定", "decided": "judgment",
            "judgment": "judgment", "judgement": "judgment", "ruled": "judgment"}


@dataclass(frozen=True)
class Value:
    """One entity's value: how it is written, how it compares, and where it was read."""

    text: str
    key: tuple[float, ...]
    unit: str
    sentence: str
    n: int


def asked_direction(question: str) -> Direction | None:
    """Which way the question compares, or None when it does not pick one of two."""
    zh = bool(re.search(r"[\u4e00-\u9fff]", question))
    if (_ZH_DIFFERENCE if zh else _EN_DIFFERENCE).search(question):
        return "difference"
    pick, table = (_ZH_PICK, _ZH_DIRECTION) if zh else (_EN_PICK, _EN_DIRECTION)
    if not pick.search(question):
        return None
    return next((d for d, p in table if p.search(question)), None)


_EN_TAIL = re.compile(r"^\s*(?:which|who|whose)\b[^,:;]*[,:]\s*(?:the\s+)?(?P<a>[^,?]+?),?\s+or\s+"
                      r"(?:the\s+)?(?P<b>[^,?]+?)\s*\??\s*$", re.I)


def compared_pair(question: str) -> tuple[str, str] | None:
    """The two names the question compares, as it writes them; None for one name."""
    if not re.search(r"[\u4e00-\u9fff]{2}", question):
        # "Which …, A or B?": the two names are the whole of what follows the comma.
        tail = _EN_TAIL.search(question)
        if tail is not None:
            return tail["a"].strip(), tail["b"].strip()
        parts = [re.sub(r"^(?:the|a|an)\s+", "", re.sub(r"^.*?,\s*", "", p), flags=re.I).strip()
                 for p in comparison_parts(question)]
        return (parts[0], parts[1]) if len(parts) == 2 and all(parts) else None
    best: tuple[int, str, str] | None = None
    for join in _ZH_JOIN.finditer(question):
        before = question[:join.start()]
        starts = [m.end() for m in _ZH_BEFORE.finditer(before)]
        left = _LEAD_TIME.sub("", before[max(starts, default=0):]).strip()
        after = question[join.end():]
        end = _ZH_AFTER.search(after)
        right = after[:end.start() if end else len(after)].strip()
        if len(left) < 2 or len(right) < 2:
            continue
        # Names in parallel are about as long: "A收购B和C收购D" splits at the middle 和,
        # not at one inside a name (成都安和生物).
        balance = abs(len(left) - len(right))
        if best is None or balance < best[0]:
            best = (balance, left, right)
    return None if best is None else (best[1], best[2])


def compared_names(question: str) -> tuple[str, str] | None:
    """The two names of a question that ``compare`` answers (it picks one of two, or asks how
    far apart they are), each with what is asked of it dropped; None for any other question."""
    return compared_pair(question) if asked_direction(question) else None


def searches(question: str) -> list[str]:
    """One search per compared name: the name and the asked thing ("华辰精密 营业收入"), so
    each name's document is looked for on its own, not left to the whole question's one
    search (on a KB of look-alike reports its top hits may all be one side's); [] for a
    question ``compare`` does not answer."""
    names = compared_names(question)
    if names is None:
        return []
    aspect = " ".join(_aspect(question, names))
    return [f"{name} {aspect}".strip() for name in names]


def _cn_number(text: str) -> int:
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _ZH_DIGIT.get(tens, 1) * 10 + _ZH_DIGIT.get(ones, 0)
    return int("".join(str(_ZH_DIGIT[c]) for c in text))


def _date_key(m: re.Match[str]) -> tuple[float, ...]:
    g = m.groupdict()
    if g["y"]:
        return (int(g["y"]), int(g["m"]), int(g["d"] or 0))
    if g["cy"]:
        return (_cn_number(g["cy"]), _cn_number(g["cm"]), _cn_number(g["cd"]) if g["cd"] else 0)
    if g["ey"]:
        return (int(g["ey"]), _MONTHS[g["em"].lower()], int(g["ed"]))
    if g["fy"]:
        return (int(g["fy"]), _MONTHS[g["fm"].lower()], int(g["fd"]))
    return (int(g["iy"]), int(g["im"]), int(g["id"]))


def _amounts(sentence: str) -> list[tuple[int, str, tuple[float, ...], str]]:
    """(position, text, value, unit) of each amount or measure in ``sentence``."""
    out: list[tuple[int, str, tuple[float, ...], str]] = []
    for pattern in (_ZH_AMOUNT, _EN_AMOUNT):
        for m in pattern.finditer(sentence):
            g = m.groupdict()
            number, unit = (g["n"], g["c"]) if g["n"] else (
                g["pn"], "%" if g["pc"].startswith(("%", "per")) else g["pc"].lower().rstrip("s"))
            scale = _SCALE.get((g.get("s") or "").lower(), 1.0)
            currency = _CURRENCY.get(unit.lower(), "%" if unit in ("％", "%") else unit)
            value = float(number.replace(",", "")) * scale
            out.append((m.start(), m.group(0).strip(), (value,), currency))
    return out


def _dates(sentence: str) -> list[tuple[int, str, tuple[float, ...], str]]:
    return [(m.start(), m.group(0).strip(), _date_key(m), "date") for m in _DATE.finditer(sentence)]


def _document(name: str, passages: list[Passage]) -> str | None:
    """The doc_id of the document about ``name``: most of the name's character pairs (words,
    in English) in its title, else in its text."""
    zh = bool(re.search(r"[\u4e00-\u9fff]", name))
    grams = char_ngrams(norm(name)) if zh else set(content_terms(name))
    if not grams:
        return None

    def held(text: str) -> float:
        hay = norm(text)
        return sum(1 for g in grams if g in hay) / len(grams)

    scored = sorted(((held(p["title"]), held(p["title"] + p["text"]), p["doc_id"])
                     for p in passages), reverse=True)
    title, whole, doc = scored[0]
    return doc if max(title, whole) >= 0.6 else None


def _value(doc: str, aspect: list[str], kind: str, question: str,
           passages: list[Passage]) -> Value | None:
    """The value of ``kind`` ("date" or "amount") that ``doc`` gives for the asked aspect."""
    own = [(n, p) for n, p in enumerate(passages, start=1) if p["doc_id"] == doc]
    if kind == "date":
        signed = _signed(question, own)
        if signed is not None:
            return signed
    read = _dates if kind == "date" else _amounts
    best: tuple[float, Value] | None = None
    for n, p in own:
        for s in split_sentences(p["text"]):
            found = read(s)
            if not found:
                continue
            at = [i for t in aspect for i in [s.casefold().find(t.casefold())] if i >= 0]
            if not at:
                continue
            score = len(at) / max(len(aspect), 1)
            # The value the asked words lead to: the nearest after them (营业收入71.35亿元),
            # or for a date the nearest either side (2025年5月20日，公司完成…).
            first = min(at)
            after = [f for f in found if f[0] >= first]
            pick = (min(after, key=lambda f: f[0] - first) if after and kind == "amount"
                    else min(found, key=lambda f: abs(f[0] - first)))
            v = Value(pick[1], pick[2], pick[3], s, n)
            if best is None or score > best[0]:
                best = (score, v)
    return best[1] if best else None


def _signed(question: str, own: list[tuple[int, Passage]]) -> Value | None:
    """When the document is the act asked about (a judgment, for "哪天判决"), the date it is
    signed with: a line that is a date alone, the last one."""
    act = next((v for k, v in _OWN_ACT.items() if k in question.casefold()), None)
    if act is None or not own or act not in norm(own[0][1]["title"]):
        return None
    for n, p in own:
        dated = [(ln.strip(), m) for ln in p["text"].splitlines()
                 if (m := _DATE.fullmatch(ln.strip()) or _labelled(ln.strip(), act))]
        if dated:
            line, m = dated[-1]
            return Value(m.group(0), _date_key(m), "date", line, n)
    return None


def _labelled(line: str, act: str) -> re.Match[str] | None:
    """The date of a line that labels it as the act's ("Date of judgment: 14 August 2025",
    "判决日期：2025年5月30日")."""
    label, colon, rest = line.partition(":") if ":" in line else line.partition("：")
    if not colon or act not in norm(label) or len(label) > 30:
        return None
    return _DATE.fullmatch(rest.strip())


_ASKS_DATE = re.compile(r"哪天|哪一天|什么时候|何时|什么时间|哪个日期|日期|几月几[日号]|"
                        r"^\s*when\b|\bwhat date\b|\bon what day\b", re.I)


def signed_date(question: str, passages: list[Passage], n: int) -> Sentence | None:
    """"陈某与某公司劳动争议案是哪天判决的？": the date the judgment (passage ``n``'s document)
    is signed with, not the dates of the events it tells; None for other questions."""
    if not _ASKS_DATE.search(question):
        return None
    doc = passages[n - 1]["doc_id"]
    own = [(i, p) for i, p in enumerate(passages, start=1) if p["doc_id"] == doc]
    v = _signed(question, own)
    return None if v is None else Sentence(text=v.sentence, cites=[v.n])


def _aspect(question: str, names: tuple[str, str]) -> list[str]:
    named = set(content_terms(names[0])) | set(content_terms(names[1]))
    rest = _ASKING.sub(" ", question)
    for name in names:
        rest = rest.replace(name, " ")
    return [t for t in content_terms(rest) if t not in named and len(t) >= 2
            and not re.fullmatch(r"(?:19|20)\d\d年?", t)]


def compare(question: str, passages: list[Passage], language: str) -> list[Sentence] | None:
    """The verdict and each side's sentence for a question that compares two named things;
    None when the question does not, or neither side's value is found."""
    direction = asked_direction(question)
    names = compared_pair(question) if direction else None
    if direction is None or names is None:
        return None
    docs = [_document(name, passages) for name in names]
    if docs[0] is None or docs[1] is None or docs[0] == docs[1]:
        return None
    kind = "date" if direction in ("earlier", "later") else "amount"
    aspect = _aspect(question, names)
    a, b = (_value(doc, aspect, kind, question, passages) for doc in docs if doc is not None)
    if a is None and b is None:
        return None
    quoted = [Sentence(text=v.sentence, cites=[v.n]) for v in (a, b) if v is not None]
    return [_verdict(question, direction, names, a, b, "zh" if language == "zh" else "en"), *quoted]


def _verdict(question: str, direction: Direction, names: tuple[str, str],  # noqa: PLR0917 - all read by the verdict
             a: Value | None, b: Value | None, lang: str) -> Sentence:
    """Which of the two wins, from both values; or why the values do not say."""
    if a is None or b is None:
        found, v, missing = (names[0], a, names[1]) if a is not None else (names[1], b, names[0])
        assert v is not None
        text = messages.COMPARE_MISSING[lang].format(found=found, value=v.text, missing=missing)
        return Sentence(text=text, cites=[v.n], note=True)
    if a.unit != b.unit:
        text = messages.COMPARE_UNLIKE[lang].format(a=names[0], va=a.text, b=names[1], vb=b.text)
    elif a.key == b.key:
        text = messages.COMPARE_SAME[lang].format(a=names[0], b=names[1], value=a.text)
    elif direction == "difference":
        text = messages.COMPARE_DIFFERENCE[lang].format(
            a=names[0], va=a.text, b=names[1], vb=b.text, diff=_difference(a, b))
    else:
        first_wins = (a.key < b.key) == (direction in ("earlier", "lower"))
        (win, vw), (lose, vl) = (((names[0], a), (names[1], b)) if first_wins
                                 else ((names[1], b), (names[0], a)))
        text = messages.COMPARE_VERDICT[lang].format(
            winner=win, word=_said(question, direction, lang), vw=vw.text, loser=lose,
            vl=vl.text)
        return Sentence(text=text, cites=[vw.n, vl.n], note=True)
    return Sentence(text=text, cites=[a.n, b.n], note=True)


_ZH_SAID = re.compile(r"更[高低多少大小长短早晚贵]")
_EN_SAID = re.compile(r"\b(?:earlier|later|higher|lower|larger|smaller|bigger|greater|longer|"
                      r"shorter)\b", re.I)


def _said(question: str, direction: Direction, lang: str) -> str:
    """The verdict's word: the question's own comparative when it has one ("更长" for
    "谁的住院时间更长"), else the direction's."""
    m = (_ZH_SAID if lang == "zh" else _EN_SAID).search(question)
    if m is not None and direction != "difference":
        return m.group(0).lower()
    return messages.COMPARE_WORD[lang].get(direction, "")


_NUMBER = re.compile(r"\d[\d,]*(?:\.(\d+))?")


def _difference(a: Value, b: Value) -> str:
    """|a - b| written as ``a`` is (its scale, unit and currency), to the places the two give:
    "38.62亿元" and "19.83亿元" -> "18.79亿元"."""
    first = _NUMBER.search(a.text)
    assert first is not None
    written = float(first.group(0).replace(",", ""))
    scale = a.key[0] / written if written else 1.0
    places = max(len(m.group(1) or "") for v in (a, b) if (m := _NUMBER.search(v.text)))
    diff = f"{abs(a.key[0] - b.key[0]) / scale:,.{places}f}"
    if "," not in first.group(0):
        diff = diff.replace(",", "")
    return a.text[:first.start()] + diff + a.text[first.end():]
