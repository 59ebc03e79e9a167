"""Whether a question names a topic of its own, read from the kinds of words it uses and,
where the words alone cannot tell, from how the knowledge base spreads them. Neutral: the
route node and both engines read it, so one rule decides whether a question may be asked
back.

A question names no topic when every word it has belongs to a class that needs something
else to point at: function and question words, pronouns and deictics ("这个怎么弄？", "how
does that work?"), light verbs ("do", "弄"), actions that take an object ("apply", "申请"),
attribute or measure nouns ("limit", "上限": the limit *of what*) and container nouns
("document", "制度"). Classes are closed or nearly so, and English words are compared by
their Snowball stem, so inflections and derivations ("approves", "deadlines") fall into the
class of the word written here. A Chinese compound built only of such parts ("申请表",
"费用标准", "批下来") is one too. Any other word (a name, a code, "VPN", "年假") is a topic.

The knowledge base adds what the words cannot say: a word held by a large share of its
documents (``Spread``) says as little about where to look as a container noun does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import rjieba

from agent.state import Spread
from agent.text import GENERIC, all_content_terms, norm
from store.stem import stem
from store.tokenize import STOPWORDS, has_cjk, tokens

Verdict = Literal["names_topic", "no_topic", "broad_in_kb", "points_at_nothing"]

# Pronouns and deictics: at the start of a thread they point at nothing.
_DEICTIC = frozenset([
    "this", "that", "these", "those", "it", "its", "they", "them", "one", "ones", "such", "same",
    "above", "former", "latter",
    "这", "那", "这个", "那个", "这些", "那些", "这种", "那种", "这样", "那样", "这份", "那份",
    "这项", "那项", "它", "它们", "此", "该", "其", "上述", "前面", "刚才",
])
# Personal pronouns: who asks, not what about.
_PRONOUNS = frozenset([
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "you", "your", "yours", "he",
    "him", "his", "she", "her", "hers", "their", "theirs", "someone", "somebody", "anyone",
    "我", "我们", "你", "你们", "您", "他", "她", "他们", "自己", "大家", "别人", "谁",
])
# Particles and adverbs of asking that English leaves as words ("how long", "how soon",
# "sign up"), and Chinese resultative complements ("批下来", "弄好").
_FUNCTION = frozenset([
    "long", "soon", "far", "often", "up", "out", "off", "down", "back", "over", "away", "again",
    "now", "currently", "exactly",
    "下来", "下去", "起来", "出来", "一下", "好", "完", "到", "掉", "上", "下", "过", "着", "了",
    "得", "吗", "呢", "吧", "啊", "在", "哪", "哪里", "哪儿", "里", "要", "想", "会", "应", "需",
])
# Verbs with almost no meaning of their own: they borrow it from an object.
_LIGHT_VERBS = frozenset([
    "do", "make", "get", "go", "work", "handle", "deal", "take", "happen", "put", "set", "sort",
    "start", "begin", "try", "need", "want", "find", "send", "bring", "give", "keep", "pick",
    "fill", "carry",
    "弄", "搞", "办", "做", "干", "搞定", "弄好", "进行", "开始", "找", "用", "走", "看",
])
# Actions that take an object: alone, they do not say what is acted on.
_ACTIONS = frozenset([
    "apply", "application", "submit", "submission", "register", "registration", "request",
    "approve", "approval", "sign", "enroll", "enrol", "book", "file", "claim", "renew", "renewal",
    "cancel", "cancellation", "change", "update", "modify", "reset", "install", "configure",
    "setup", "access", "extend", "extension", "download", "upload", "allow", "permit", "own",
    "申请", "办理", "提交", "报名", "处理", "操作", "审批", "批准", "批", "开通", "预约", "登记",
    "设置", "填写", "填", "报", "签", "签字", "续", "续签", "取消", "变更", "修改", "安装", "配置",
    "重置", "领取", "领", "交", "退", "换", "改", "查", "查询", "申报", "报备", "审核", "确认",
    "联系", "备案", "下载", "上传", "负责", "允许",
])
# Attribute and measure nouns: a value *of* something ("the limit", "上限", "多久").
_ATTRIBUTES = frozenset([
    "limit", "cap", "maximum", "minimum", "max", "min", "price", "cost", "fee", "amount",
    "deadline", "duration", "time", "period", "date", "rule", "requirement", "standard",
    "criterion", "criteria", "condition", "eligibility", "quota", "rate", "number", "size",
    "frequency", "length", "status", "owner", "contact", "address", "location", "schedule", "step",
    "procedure", "process", "form", "template", "link", "format", "version", "level", "budget",
    "allowance", "threshold", "timeline", "detail", "due", "responsible", "eligible",
    "上限", "下限", "额度", "标准", "价格", "费用", "钱", "金额", "期限", "时限", "截止",
    "截止日期", "时间", "日期", "要求", "条件", "规则", "资格", "多长", "多久", "流程", "步骤",
    "手续", "表", "表格", "模板", "链接", "地址", "联系人", "负责人", "状态", "进度", "周期",
    "频率", "次数", "比例", "数量", "范围", "预算", "天数", "入口", "方式", "方法",
    "办法", "细节",
])
# Container nouns: any document or subject could be meant.
_CONTAINERS = frozenset([
    "report", "document", "doc", "policy", "manual", "runbook", "data", "system", "issue",
    "problem", "stuff", "info", "file", "thing", "matter", "question", "topic", "guide",
    "guideline", "page", "note", "regulation",
    "报告", "文档", "资料", "制度", "规定", "政策", "手册", "预案", "数据", "系统", "问题", "东西",
    "信息", "内容", "事情", "事", "文件", "说明", "指南", "规范", "材料", "情况",
])
# Jieba part-of-speech tags of words that never carry a topic: pronouns, numerals, measure
# words, adverbs, prepositions, conjunctions, particles, interjections.
_FUNCTION_TAGS = frozenset([
    "r", "m", "q", "d", "p", "c", "u", "y", "e", "o", "uj", "ul", "zg",
])

# A word in at least this share of a KB's documents is broad there (a container noun of
# that KB); below this many documents a share says little.
BROAD_SHARE = 0.3
MIN_DOCUMENTS = 10


def _stems(words: frozenset[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in words if w.isascii())


_NEEDS_OBJECT = _LIGHT_VERBS | _ACTIONS | _ATTRIBUTES | _CONTAINERS
_NEEDS_OBJECT_STEMS = _stems(_NEEDS_OBJECT)
_POINTING = _DEICTIC | _PRONOUNS | _FUNCTION
_POINTING_STEMS = _stems(_POINTING)


def _listed(piece: str) -> bool:
    """A word of the classes above, or a stopword or generic question word."""
    return (piece in _NEEDS_OBJECT or piece in _POINTING or piece in STOPWORDS
            or piece in GENERIC)


def _tagged_as_nothing(word: str) -> bool:
    """A function word by its jieba tag, or a verb of one character ("带", "送", "拿": a
    one-character verb is a bare action; the verbs that name a topic are compounds)."""
    tagged = list(rjieba.tag(word))
    if len(tagged) != 1:
        return False
    tag = tagged[0][1]
    return tag in _FUNCTION_TAGS or (len(word) == 1 and tag == "v")


@lru_cache(maxsize=4096)
def _compound_of_parts(word: str) -> bool:
    """Whether a Chinese ``word`` names nothing: it is of a class above or tagged as such,
    or it splits wholly into listed pieces ("申请表" = 申请 + 表, "批下来" = 批 + 下来).
    Only whole words are read by their tag: the characters of "食堂" are a verb and a
    measure word, the word is a place."""
    if _listed(word) or _tagged_as_nothing(word):
        return True
    n = len(word)
    ends = [False] * (n + 1)
    ends[0] = True
    for i in range(n):
        if ends[i]:
            for j in range(i + 1, n + 1):
                if _listed(word[i:j]):
                    ends[j] = True
    return ends[n]


def _names_nothing(word: str) -> bool:
    """A word of a class that needs something else to point at."""
    if word.isascii():
        return (word in _NEEDS_OBJECT or word in _POINTING
                or stem(word) in _NEEDS_OBJECT_STEMS or stem(word) in _POINTING_STEMS)
    if has_cjk(word):
        return _compound_of_parts(word)
    return False


def _deictic(question: str) -> bool:
    """The question leans on a pronoun or deictic ("那个报销呢", "what about that form?")."""
    return any(w in _DEICTIC for w in tokens(question, precise=True))


def topic_words(question: str) -> list[str]:
    """The words of ``question`` that name something of their own."""
    # A lone Latin letter is a clitic left by tokenizing ("what's" -> "s"), not a topic.
    terms = [t for t in all_content_terms(question) if len(t) > 1 or not t.isascii()]
    return [t for t in terms if not _names_nothing(t)]


def _broad(word: str, spread: Spread) -> bool:
    held = spread["holding"].get(word)
    return held is not None and held >= BROAD_SHARE * spread["documents"]


def _spread_over_documents(word: str, spread: Spread) -> bool:
    return spread["holding"].get(word, 0) >= 2


def specificity(question: str, spread: Spread | None = None) -> Verdict:
    """``names_topic``, or why not: ``no_topic`` (only words that need something else to
    point at), ``broad_in_kb`` (its few topic words are held by a large share of the KB's
    documents) or ``points_at_nothing`` (a deictic whose one topic word several documents
    hold: "that badge?" as a thread's first message). Without ``spread`` only the words
    decide."""
    found = topic_words(question)
    if not found:
        return "no_topic" if norm(question) else "names_topic"
    if spread is None or spread["documents"] < MIN_DOCUMENTS or len(found) > 2:
        return "names_topic"
    if all(_broad(w, spread) for w in found):
        return "broad_in_kb"
    if len(found) == 1 and _deictic(question) and _spread_over_documents(found[0], spread):
        return "points_at_nothing"
    return "names_topic"


def needs_kb_evidence(question: str) -> list[str]:
    """The topic words whose spread in the KB ``specificity`` would read: those of a
    question with one or two of them ([] when the words alone decide)."""
    found = topic_words(question)
    return found if 0 < len(found) <= 2 else []
