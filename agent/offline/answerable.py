"""Offline decision to answer or refuse: does the pool hold the question's terms?

The rule: refuse when no passage (or, for a question spanning documents, no two passages)
holds at least ``REFUSE_BELOW`` (0.6 in English, 0.5 in Chinese) of the question's topic
terms. A term counts as held when a passage (its title or text: ``said_by``) has
the word itself or a near form of it: the plural or another inflection ("bicycles" /
"bicycle"), or a one-letter slip of the asker ("climage" / "climate",
"protain" / "protein"). Conversational questions are typed fast; without near forms a typo
alone made the bot refuse a question its documents answer.

What this cannot see: whether a sentence that holds the terms actually answers the question
("Who was the last Emperor?" next to "Theodosius I was the last Emperor to rule both
halves"). Without an entailment model that stays out of reach: on mtrag (full mode, 3
rounds) this rule refuses 4 of 28 unanswerable turns and 27 of 410 answerable ones (the
threshold was chosen on the even-numbered threads; the odd ones: 2/12 and 13/202). No
lexical or MiniLM similarity feature tried separated the two kinds on the held-out threads
(ROC AUC 0.40-0.60), so a stricter threshold only refuses more of both.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from agent.offline.asked import (
    codes,
    designations,
    entities,
    measures,
    names,
    names_code,
    names_designation,
    years,
)
from agent.offline.versions import kind_of, members
from agent.state import Language, Passage
from agent.text import Alternatives, content_terms, coverage, term_set, terms_of
from agent.wording import plain
from store.english_forms import irregular_family
from store.stem import stem
from store.tokenize import (
    chinese_nouns,
    dictionary_word,
    has_cjk,
    language_of,
    normalize,
    tokens,
)

# Below this share of the question's terms in the best passage, the pool is off-topic.
# English: chosen on the even-numbered threads of mtrag (see ``ragbot eval``): 0.5 with exact
# words refused 3.8% of answerable turns and 6.2% of unanswerable ones; 0.6 with near forms
# refuses 7.2% and 12.5%. Chinese questions keep 0.5: they have two or three terms, one of
# them the asked-for attribute that the document words differently (籍贯 / "浙江人"), and
# no Chinese set with unanswerable questions was there to choose on.
REFUSE_BELOW: dict[Language, float] = {"en": 0.6, "zh": 0.5}
# Words shorter than this are matched exactly: "cat" / "car" are different words.
MIN_NEAR = 5
# Two longer words with the same first six letters share a root ("historical" / "history").
ROOT = 6


def _one_edit(a: str, b: str) -> bool:
    """One substitution, insertion or deletion apart, or two neighbouring letters swapped
    ("recieve" / "receive": the slip typed most often) (``a != b``)."""
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    swapped = a[i:i + 2] == b[i:i + 2][::-1] and a[i + 2:] == b[i + 2:]
    return a[i + 1:] == b[i + 1:] or a[i + 1:] == b[i:] or a[i:] == b[i + 1:] or swapped


def near(a: str, b: str) -> bool:
    """The same word, an inflection of it (an irregular one too: "took" / "take"), a word of
    the same root, or a one-letter typo
    (Latin words of five or more letters; a shorter word matches itself and its own
    inflections only, Chinese words exactly)."""
    if a == b:
        return True
    if not (a.isascii() and b.isascii()):
        return False
    if b in irregular_family(a):
        return True  # "took" / "take": an inflection no ending shows
    if len(a) < MIN_NEAR or len(b) < MIN_NEAR:
        # A short word's own plural ("meal" / "meals"), never another word ("cat" / "car").
        return a.isalpha() and b.isalpha() and stem(a) == stem(b)
    shared_root = len(a) >= ROOT and len(b) >= ROOT and a[:ROOT] == b[:ROOT]
    return shared_root or stem(a) == stem(b) or _one_edit(a, b)


def held_terms(text: str, terms: list[str], alternatives: Alternatives | None = None
               ) -> set[str]:
    """The ``terms`` that ``text`` holds, exactly, in a near form or through one of their
    ``alternatives`` (translations)."""
    found = terms_of(text, terms, alternatives)
    missing = [t for t in terms if t not in found]
    if missing:
        words = term_set(text)
        found |= {t for t in missing if any(near(t, w) for w in words)}
    return found


def said_by(p: Passage) -> str:
    """What a passage holds for the gate: its title, its document's date (a dated report
    speaks of its year: "2025" is said by a report of 2025-02-25 that never writes it) and
    its text. (Its headings too was tried: an unanswerable question then borrowed a heading's
    words and was answered; reverted.)"""
    return " ".join(x for x in (p["title"], p.get("date", ""), p["text"]) if x)


def heading_terms(p: Passage, terms: list[str]) -> set[str]:
    """The ``terms`` the heading right above passage ``p``'s text writes as they are. A
    section's heading names what its body says ("## 打印机显示脱机" above the fix, an FAQ's
    "### question?" above its answer), though the body seldom repeats it. As written only:
    a heading is a short label, and one translated sense in it is chance ("几点开始" read as
    "start" in "Before you start"). And only the passage's own heading: with every heading
    above it counted, an unanswerable question borrowed a chapter's words (c346bdc, reverted
    in ca736e8)."""
    if not p.get("heading_path"):
        return set()
    return held_terms(p["heading_path"][-1], terms, None)


class Carried(NamedTuple):
    """What a follow-up's rewrite carried in from the thread: the ``words`` and the documents
    (``doc_ids``) the thread's latest answer cited for them, in the asker's ``language``."""

    words: list[str]
    doc_ids: frozenset[str]
    language: Language


def _held(p: Passage, terms: list[str], alternatives: Alternatives | None,
          carried: Carried | None) -> set[str]:
    """The ``terms`` passage ``p`` holds. A document the thread already answered from,
    written in the other language, holds the words the rewrite carried in: they are the
    previous question's words ("annual leave", "after five years"), which a Chinese policy
    words its own way (年假, 满 5 年); that document was found to be about them."""
    found = held_terms(said_by(p), terms, alternatives) | heading_terms(p, terms)
    if (carried is not None and p["doc_id"] in carried.doc_ids
            and language_of(p["title"] + " " + p["text"]) != carried.language):
        found |= set(carried.words) & set(terms)
    return found


def evidence_coverage(terms: list[str], passages: list[Passage], *, several: bool,
                      joined: list[Passage] | None = None,
                      joined_terms: list[str] | None = None,
                      alternatives: Alternatives | None = None,
                      carried: Carried | None = None) -> float:
    """Share of the question's terms the best passage holds (or the best two together, when
    the question spans several documents; or all of ``joined``, the documents a multi-hop
    chain went through, together, counting ``joined_terms``: the relation words the hops
    followed are not words the documents hold). ``carried``: see ``_held``."""
    sets = [_held(p, terms, alternatives, carried) for p in passages]
    best = max((coverage(terms, s) for s in sets), default=0.0)
    if joined:
        asked = joined_terms or terms
        together = set().union(*(held_terms(said_by(p), asked, alternatives)
                                 for p in joined))
        best = max(best, coverage(asked, together))
    if several:
        top = sets[:8]
        for i, a in enumerate(top):
            for b in top[i + 1:]:
                best = max(best, coverage(terms, a | b))
    return best


def answerable(terms: list[str], passages: list[Passage], *, several: bool,
               language: Language = "en", joined: list[Passage] | None = None,
               joined_terms: list[str] | None = None,
               alternatives: Alternatives | None = None,
               carried: Carried | None = None) -> bool:
    """Whether the pool holds enough of the question (in ``language``) to answer from it;
    a term's ``alternatives`` (its translations) hold it too, and so does the thread's
    other-language document hold the words carried in from the thread (``carried``)."""
    if not passages:
        return False
    bar = REFUSE_BELOW[language]
    share = evidence_coverage(terms, passages, several=several, joined=joined,
                              joined_terms=joined_terms, alternatives=alternatives)
    if share >= bar or carried is None or not carried.doc_ids:
        return share >= bar
    # Crediting the carried words must not let them stand in for the asker's own: "Does it
    # apply to contractors too?" is not answered by a document that never names contractors.
    own = [t for t in terms if t not in carried.words]
    return (evidence_coverage(terms, passages, several=several, alternatives=alternatives,
                              carried=carried) >= bar
            and evidence_coverage(own, passages, several=several,
                                  alternatives=alternatives) >= bar)


def missing_constraint(question: str, passages: list[Passage],
                       alternatives: Alternatives | None = None) -> str | None:
    """A word that narrows the question to something the pool never mentions, or ``None``.

    Eleven shapes, read from the question: a year the pool never names, a numbered member of
    a series ("Tier 3" beside a table of tiers 1 and 2; "4号线" or "the 7th edition" beside
    passages numbering others of the kind), a code ("the MX-500 model"), a
    measured amount no passage names, itself or translated ("revenue" asked of a returns
    report), a name ("the hotel limit in Singapore"), a word right before a category
    noun the pool does hold ("智能手表产品线": 产品线 is there, 手表 nowhere; "the apparel
    line"; "a gym allowance"), a count asked of a thing no sentence counts ("多少个分片":
    the runbook says to shard, never into how many), a measured value no passage gives
    ("血压是多少" beside a record without one), a role whose holder a Chinese question asks
    that no passage names ("评审团主席是谁"), and a Chinese question's thing no passage
    names where the pool holds only its verbs ("眼镜可以报销吗"). Documents about the other
    words answer about something else then; quoting them would be a confident wrong answer.
    """
    if not passages:
        return None
    texts = [said_by(p) for p in passages]
    for check in (_missing_year, _missing_designation, _missing_member, _missing_code,
                  _missing_measure, _missing_name, _missing_modifier, _missing_count,
                  _missing_detail, _missing_role, _missing_recurrence, _missing_subject):
        missing = check(question, texts, alternatives)
        if missing is not None:
            return missing
    return None


def _missing_subject(question: str, texts: list[str], alternatives: Alternatives | None
                     ) -> str | None:
    """A Chinese question's thing that no passage names, when all the pool holds of it are
    its verbs ("眼镜可以报销吗" beside reimbursement rules that never name glasses):
    the documents say how to claim, not whether that thing may be claimed. A thing whose part
    the pool names ("报销单" where passages say 报销) may be written otherwise there; and
    one held word naming a thing (a noun, a Latin name) leaves the rest to the share of
    terms held ("王芳的籍贯": the record names her, and says 浙江人)."""
    if not has_cjk(question) or not texts:
        return None
    terms = content_terms(question)
    held = {t for t in terms if _held_anywhere(t, texts, alternatives)}
    nouns = chinese_nouns(question)
    if not held or any(t in nouns or not has_cjk(t) for t in held):
        return None
    # Judged where a Chinese passage holds its verbs: one in the other language may name the
    # thing under a word the dictionary does not offer (高铁 as "trains").
    if not any(language_of(t) == "zh" and held & held_terms(t, sorted(held), alternatives)
               for t in texts):
        return None
    # The thing is the question's topic, which Chinese puts first ("眼镜" before
    # "可以报销吗"), and a word of the dictionary: jieba's guess at an unknown run ("券能" of
    # "夜宵券能抵扣") names nothing.
    first = terms[0]
    if (first in nouns and len(first) >= 2 and dictionary_word(first)
            and not any(_held_anywhere(piece, texts, alternatives) for piece in tokens(first))):
        return first
    return None


# "X的Y是谁", "Y为哪位", "谁是X的Y": a person asked by the role Y.
_ZH_ASKED_WHO = re.compile(r"([\u4e00-\u9fff]+?)(?:是|为)(?:谁|哪位)|谁是([\u4e00-\u9fff]+)")
# An agent noun ("扮演者", "创始人", "负责人": who plays, founds, is in charge) is said with its
# verb as often as with the noun ("由古天乐饰演", "由运维组负责").
_AGENT_NOUN = re.compile(r"[者人]$")


def _missing_role(question: str, texts: list[str], alternatives: Alternatives | None
                  ) -> str | None:
    """The role a Chinese question asks the holder of ("第三届茶博会的组委会主任是谁" -> "主任")
    when no passage names it, itself or translated: the documents then name other people of
    the thing asked about, and quoting them answers someone else."""
    q = normalize(question).replace(" ", "")
    for m in _ZH_ASKED_WHO.finditer(q):
        words = [w for w in tokens(m.group(1) or m.group(2), precise=True) if has_cjk(w)]
        if not words:
            continue
        role = words[-1]
        # A word of the dictionary: jieba tags a role as a noun or a distinguishing word
        # ("主任"), and a guess at an unknown run names nothing.
        if (len(role) >= 2 and dictionary_word(role) and not _AGENT_NOUN.search(role)
                and not _held_anywhere(role, texts, alternatives)):
            return role
    return None


# "多久轮换一次", "每隔多久", "how often": the asked value recurs.
_ASKS_RECURRENCE = re.compile(r"(?:多久|多长时间|几天|几周|几个月|几年|多少天)"
                              r"[^，,。？?]{0,12}?一次|每隔多[久长]|频率|频次|"
                              r"\bhow\s+(?:often|frequently)\b", re.I)
_RECURRENCE_WORDS = frozenset(["一次", "多久", "频率", "频次", "often", "frequently"])
# How either language says that something recurs or lasts for a period: "每 180 天", "每天",
# "每季度", "90 天一次", "一周两天", "有效期最长 90 天", "every 180 days", "weekly",
# "two days a week", "once a year",
# "Profiles last 180 days", "a three-year refresh cycle". A deadline after an event
# ("一旦密钥泄露，必须在 1 小时内轮换") says how soon, not how often.
_RECURS = re.compile(
    r"每\s*[0-9０-９一二两三四五六七八九十半]*\s*个?(?:天|日|周|星期|月|季度?|年|小时|分钟|晚)|"
    r"[0-9一二两三四五六七八九十]+\s*个?(?:天|周|月|年|小时)\s*(?:一|1)\s*次|周期|有效期|定期|"
    # a rate: "一周两天", "一年一次", "two days a week", "three times per month"
    r"[一每]\s*(?:天|周|星期|个?月|季度?|年)\s*[0-9一二两三四五六七八九十]+\s*[次天]|"
    r"\b(?:a|per)\s+(?:day|week|month|quarter|year)\b|"
    r"\bevery\b|\beach\s+(?:day|week|month|quarter|year)\b|\b(?:daily|weekly|monthly|"
    r"quarterly|annually|yearly|nightly|hourly)\b|\bonce\s+(?:a|per|every)\b|"
    r"\b(?:times?|twice)\s+(?:a|per)\b|"
    r"\bcycles?\b|\blasts?\s+\d|\bvalid\s+for\b|\bexpir\w*\s+after\b|"
    r"\bafter\s+\d+\s+(?:days|weeks|months|years)\b", re.I)


def _missing_recurrence(question: str, texts: list[str], alternatives: Alternatives | None
                        ) -> str | None:
    """How often something is done, when the sentences that hold most of what the question
    names (at least half its words) say no period it recurs or lasts for: "备份加密用的密钥
    多久轮换一次" beside "一旦密钥泄露，必须在 1 小时内轮换" (a deadline after a leak) and
    "备份文件使用 AES-256 加密，密钥由安全组统一保管" (no rotation at all). The backup
    table's "全量备份：每天 02:00" recurs, but names the backups only."""
    if not _ASKS_RECURRENCE.search(question):
        return None
    terms = [t for t in content_terms(question) if t not in _RECURRENCE_WORDS]
    if not terms:
        return None
    about = [s for t in texts for s in _SENTENCES.split(t)
             if 2 * len(held_terms(s, terms, alternatives) & set(terms)) >= len(terms)]
    if not about or any(_RECURS.search(s) for s in about):
        return None
    return "多久一次" if has_cjk(question) else "how often"


def _missing_year(question: str, texts: list[str], _: Alternatives | None) -> str | None:
    pool_years = set().union(*(years(t) for t in texts))
    return next((y for y in sorted(years(question)) if y not in pool_years), None)


def _missing_designation(question: str, texts: list[str], _: Alternatives | None
                         ) -> str | None:
    for designation in designations(question):
        if not any(names_designation(designation, t) for t in texts):
            return f"{designation[0].capitalize()} {designation[1]}"
    return None


def _missing_member(question: str, texts: list[str], _: Alternatives | None) -> str | None:
    # "望川地铁4号线" beside passages on lines 2 and 3, "the 7th edition" beside reports of the
    # 5th and 6th: another member of the series answers about something else. A pool that
    # numbers none of that kind says nothing either way (an edition known by its year).
    named = set().union(*(members(t) for t in texts)) if texts else set()
    kinds = {kind_of(m) for m in named}
    return next((wording for m, wording in members(question).items()
                 if kind_of(m) in kinds and m not in named), None)


def _missing_code(question: str, texts: list[str], _: Alternatives | None) -> str | None:
    # Read as the handbook writes it: a chat abbreviation ("2fa", "b4") is a word, no code.
    return next((c for c in codes(plain(question))
                 if not any(names_code(c, t) for t in texts)), None)


def _held_anywhere(word: str, texts: list[str], alternatives: Alternatives | None) -> bool:
    return any(word in held_terms(t, [word], alternatives) for t in texts)


def _missing_measure(question: str, texts: list[str], alternatives: Alternatives | None
                     ) -> str | None:
    return next((m for m in measures(question)
                 if not _held_anywhere(m, texts, alternatives)), None)


def _missing_name(question: str, texts: list[str], alternatives: Alternatives | None
                  ) -> str | None:
    # A person or company named in Chinese ("患者赵国庆", "宁波海之星物流股份有限公司") is
    # another one than the look-alike record or report found for its common words (患者, 物流,
    # 股份有限公司): the Chinese passages must hold the name (a company's core, "海之星"), as
    # written, not as jieba cuts it. Judged only where some passage is Chinese. A company
    # whose core is held may be written without its place ("宁波"), which is then no name to
    # look for on its own.
    chinese = [normalize(t).replace(" ", "") for t in texts if language_of(t) == "zh"]
    held_names: list[str] = []
    for shown, core in entities(question) if chinese else []:
        if not any(core in t for t in chinese):
            return shown
        held_names.append(shown)
    topic = set(content_terms(question))
    # The dictionary rarely gives a Chinese place its English name (上海 is glossed
    # "Shanghai municipality, ..."): without a translation, a Chinese name is judged only
    # where every passage is Chinese too.
    english = any(language_of(t) != "zh" for t in texts)
    for name in names(question):
        untranslated = has_cjk(name) and not (alternatives or {}).get(name)
        if (name in topic and not (untranslated and english)
                and not any(name in held for held in held_names)
                and not _held_anywhere(name, texts, alternatives)):
            return name.capitalize()
    return None


def _missing_modifier(question: str, texts: list[str], alternatives: Alternatives | None
                      ) -> str | None:
    topic = set(content_terms(question))
    said = [w for w in tokens(question, precise=True) if w in topic]
    held: set[str] = set()
    # Held in the documents' own words: a word before the head is rarely in the dictionary
    # ("二线城市": 城市 translates to the table's "City tier", 二线 to nothing), and a
    # missing translation is no evidence that the documents never say it.
    for t in texts:
        held |= held_terms(t, said)
    # An English modifier the pool holds translated is there all the same ("Jiangwan" as 江湾,
    # "gym" as 健身): its translations are whole Chinese headwords. A Chinese one's are gloss
    # words read one by one (健身 "to work out" gives "work"), which any passage holds.
    latin = [w for w in said if not has_cjk(w)]
    translated = set().union(*(held_terms(t, latin, alternatives) for t in texts)) if texts \
        else set()
    nouns = chinese_nouns(question)
    for i, head in enumerate(said):
        if head not in _KINDS or head not in held:
            continue
        # Each word right before the head narrows it ("language course subsidy": a course
        # subsidy, of the language kind). A Chinese compound goes on through nouns only,
        # and "的" joins the head's own modifier only: a verb before the head opens a
        # clause ("12 月 20 日以后发生的费用", the costs incurred after a date; "出差期间
        # 产生的餐饮费用"), whose other words say when or how, not which kind.
        j = i
        while j > 0 and _adjacent(question, said[j - 1], said[j], across_de=j == i):
            j -= 1
            if said[j] in _DETERMINERS:
                break  # "每个团队", "其他城市": which ones, not which kind
            if said[j] not in held and said[j] not in translated:
                return said[j]
            if has_cjk(said[j]) and said[j] not in nouns:
                break
    return None


# Nouns that name a category whose members are named by the word before them ("智能手表
# 产品线", "the apparel line", "Berlin office"): the member is the question's subject. So do
# the nouns of what an employee is paid or granted ("gym allowance", "停车补贴", "language
# course fee"): a policy listing a home-office allowance says nothing of a gym allowance.
_KINDS = frozenset([
    "产品线", "产品", "型号", "系列", "部门", "团队", "城市", "版本", "门店", "子公司", "分公司",
    "项目", "品牌", "渠道", "业务线", "机型",
    "line", "lines", "product", "products", "model", "models", "series", "team", "teams",
    "department", "office", "offices", "city", "version", "brand", "store", "subsidiary",
    "project", "channel", "plan", "tier",
    "补贴", "津贴", "补助", "费", "费用", "奖金", "保险", "福利", "折扣", "额度",
    "allowance", "allowances", "stipend", "subsidy", "subsidies", "fee", "fees", "bonus",
    "bonuses", "insurance", "discount", "discounts", "benefit", "benefits", "reimbursement",
    "budget", "scheme", "program", "programme", "membership",
])


# Words that pick members of a kind without naming one ("每个团队", "其他城市", "所有产品线").
_DETERMINERS = frozenset(["每个", "每一个", "各个", "所有", "全部", "任何", "其他", "其它", "别的",
                          "某个", "某些", "哪个", "哪些", "这些", "那些", "这个", "那个"])


def _adjacent(question: str, first: str, second: str, *, across_de: bool = True) -> bool:
    """Whether ``second`` follows ``first`` in ``question`` with at most a space, or with
    ``across_de`` a "的", between them (a modifier and its head noun)."""
    q = question.lower()
    i = q.find(first)
    return i >= 0 and q[i + len(first):].lstrip(" 的" if across_de else " ").startswith(second)


# Classifiers that count things: units ("个", "名", "台") and containers ("瓶", "箱", "盒":
# "卖出了多少瓶洗发水" counts the shampoo). Not "片" or "块", which also measure ("几片药" a
# dose, "几块钱" money).
_COUNTERS = "个条名位台家种项张首卷班趟对架道层只件所座批支辆瓶箱盒包袋桶罐套本部艘栋"
# "多少个分片", "几个出入口", "多少条白色的垂直条纹", "how many shards": a count asked of a thing.
# A measure word after the classifier ("几个月", "几个人") asks a measure, not a thing.
_ZH_COUNT = re.compile(rf"(?:多少|几)\s*[{_COUNTERS}]"
                       r"(?![天年月周人次元块钱页岁倍]|小时|分钟)([^，。？！?!,;；]*)")
_EN_COUNT = re.compile(r"\bhow many\s+([a-z][a-z-]*)", re.I)
_ZH_ENDING = re.compile(r"(?:吗|呢|啊|呀|吧|了)+$")
_CLASSIFIER = _COUNTERS + "次"
# A number in a sentence: digits, a Chinese numeral before a measure word, a number word.
_NUMBER = re.compile(rf"\d|[一二两三四五六七八九十百千万]+\s*[{_CLASSIFIER}]"
                     r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
                     r"dozens?|hundreds?|thousands?)\b", re.I)
_CLAUSE_WORDS = frozenset(["以", "在", "为", "是", "有", "被", "把", "给", "让", "可以", "能",
                           "会", "需要", "要", "和", "与", "从", "到", "可"])
_ITEM = re.compile(r"(?:^|(?<=\s))\d{1,2}(?:\.\s|、|\)\s|）)")
_NOT_COUNTS = re.compile(r"第\s*[\d一二三四五六七八九十百千]+|\d+\s*[年月日号]"
                         r"|(?<![\d.])\d{1,2}\.(?!\d)")
_SENTENCES = re.compile(r"[。！？；!?;\n]+|(?<=[a-z)])\.\s+")


def counted(question: str) -> str | None:
    """The thing ``question`` asks a count of: the last word of the phrase after
    "多少个"/"几个" ("redis 集群最多能分多少个分片" -> "分片", "几个值班工程师" -> "工程师")
    or the word after "how many"; ``None`` when it asks no count of a thing (a measure,
    "几天", is a value of its own)."""
    m = _EN_COUNT.search(question)
    if m:
        return m.group(1).lower()
    m = _ZH_COUNT.search(question)
    if not m:
        return None
    phrase = _ZH_ENDING.sub("", m.group(1).strip())
    words: list[str] = []
    for w in tokens(phrase, precise=True):
        if w in _CLAUSE_WORDS:
            break  # "几条路线以富泰巴士总站为总站": the thing counted ends before the verb
        if has_cjk(w) or w.isalpha():
            words.append(w)
    return words[-1] if words and len(words[-1]) >= 2 else None


def _missing_count(question: str, texts: list[str], alternatives: Alternatives | None
                   ) -> str | None:
    """A count asked of a thing the pool names but never counts: no sentence holding the
    thing holds a number ("redis 集群最多能分多少个分片" beside "应迁移到 Redis 集群模式进行
    分片": the runbook says to shard, not into how many). A thing no passage names is left to
    the share of terms held: the documents may call it otherwise ("几个儿子" / "三子")."""
    thing = counted(question)
    if thing is None or thing not in content_terms(question):
        return None
    # A list item's own number ("1. 打开慢查询分析平台…") counts nothing, nor does a date or
    # an ordinal ("2024年10月购买了洗发水", "第3类商品").
    sentences = [_ITEM.sub("", s) for t in texts for s in _SENTENCES.split(t) if s.strip()]
    holding = [s for s in sentences if thing in held_terms(s, [thing], alternatives)]
    if not holding or any(_NUMBER.search(_NOT_COUNTS.sub("", s)) for s in holding):
        return None
    return f"{thing}的数量" if has_cjk(question) else f"the number of {thing}"


# The value of a measured noun asked in Chinese: "出血量是多少", "医疗费具体是多少钱",
# "获得了多少奖金". The noun is the last word before "(具体)是/为/有多少" or the word right
# after "多少", when it ends in a morpheme of measure (量 数 额 率 费 价 值 金 尺寸 时长 …) or,
# before "是多少", is any noun ("空腹血糖是多少").
_ZH_ASKED_BEFORE = re.compile(r"([\u4e00-\u9fff]+?)(?:具体|到底|究竟|一共|总共|共|大概|大约)?"
                              r"(是|为|有)?多少")
_ZH_ASKED_AFTER = re.compile(r"多少([\u4e00-\u9fff]{2,4})")
_MEASURE_END = re.compile(r"(?:量|数|额|率|费|价|值|金|比例|比重|占比|尺寸|时长|面积|重量|高度|"
                          r"长度|距离|温度|速度|功率|成本|收入|利润|开支|支出|耗时)$")
# Counts of a thing ("员工总数", "观众人数"): documents write the number with the thing and a
# classifier ("入场观众4.1万人"), seldom the count noun itself; the thing is what to look for.
_COUNT_NOUNS = ("总人数", "人数", "总数", "数量", "次数", "个数", "人次", "数目")
# Clauses: a value is beside its noun in the same clause ("电池容量5000毫安时"), not in a list
# of claimed items ("赔偿原告医疗费、误工费……等各项损失共计183600元": 医疗费 has none).
_CLAUSES = re.compile(r"[，,、；;。！？!?\n]+")
_UNITS = frozenset("钱元块天年月周次人个岁倍")


def asked_measure(question: str) -> str | None:
    """The measured noun a Chinese ``question`` asks the value of ("陈某的术中出血量是多少"
    -> "出血量", "员工总数是多少" -> "员工总数"), or ``None``."""
    q = normalize(question).replace(" ", "")
    found: list[str] = []
    for m in _ZH_ASKED_BEFORE.finditer(q):
        words = [w for w in tokens(m.group(1), precise=True) if has_cjk(w)]
        while words and words[-1] in ("的", "是", "为", "有", "了"):
            words.pop()
        if not words:
            continue
        head = words[-1]
        if len(head) == 1 and len(words) > 1:
            head = words[-2] + head
        if len(head) < 2:
            continue
        nouns = chinese_nouns(q)
        if _MEASURE_END.search(head):
            if head in _COUNT_NOUNS and len(words) > 1:
                head = words[-2] + head  # "员工" + "总数": the count of a thing
            found.append(head)
        elif m.group(2) == "是" and head in nouns:
            # A plain noun names its measure with the noun before it: "住宿标准", not any
            # "标准" (a passage's "报销标准按政策执行" is no hotel limit).
            if len(words) > 1 and len(words[-2]) >= 2 and words[-2] in nouns:
                head = words[-2] + head
            found.append(head)
    for m in _ZH_ASKED_AFTER.finditer(q):
        words = [w for w in tokens(m.group(1), precise=True) if has_cjk(w)]
        if words and len(words[0]) >= 2 and words[0][0] not in _UNITS \
                and _MEASURE_END.search(words[0]):
            found.append(words[0])
    return found[0] if found else None


def _missing_detail(question: str, texts: list[str], alternatives: Alternatives | None
                    ) -> str | None:
    """A measured value the pool does not give: the asked noun no passage holds, itself or
    translated ("星河X2的屏幕尺寸是多少英寸" beside a phone review of its battery and
    camera), or holds only without a number in its clause (a claim listing 医疗费 among
    items, the sum given only for all). A count noun is read as its thing ("员工总数" as
    员工): "共有员工1200人" gives it without the word 总数."""
    asked = asked_measure(question)
    if asked is None:
        return None
    thing = asked
    for c in _COUNT_NOUNS:
        if asked.endswith(c) and len(asked) > len(c):
            thing = asked[: -len(c)]
            break
    chinese = [normalize(t).replace(" ", "") for t in texts if language_of(t) == "zh"]
    if not chinese:
        return None
    clauses = [_ITEM.sub("", c) for t in chinese for c in _CLAUSES.split(t) if thing in c]
    if any(_NUMBER.search(c) for c in clauses):
        return None
    # A passage in the other language about what the question names (all its Chinese words
    # but the asked noun, translated: "出差", "住宿") that gives a number may give the value
    # under a word the dictionary does not offer for the asked noun ("住宿标准" over "Hotel
    # limit: CNY 800 per night"). All of them: one word's sense ("手术" as "operations") is in
    # any annual report; and no year or number, which every report has.
    # The same holds, whatever the Chinese passages say, when the other language's passage
    # also holds the asked noun translated: "值班补贴按《On-call Handbook》执行" names the
    # allowance without its sum, "a weekly allowance of CNY 1,000" for on-call gives it.
    named = {w for w in content_terms(question) if has_cjk(w)}
    subject = {w for w in named if w not in asked}
    needed = named if clauses else subject
    if subject and any(_NUMBER.search(t) and needed <= held_terms(t, sorted(needed), alternatives)
                       for t in texts if language_of(t) != "zh"):
        return None
    # Named but given no value: say which value ("医疗费的具体数值"), not that the noun is
    # absent, which the cited sentence would contradict.
    return f"{asked}的具体数值" if clauses else asked
