"""Text helpers shared by the engines and the graph nodes: language, sentences, terms,
overlap. Neutral: no engine's decision rules live here."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence

from agent.wording import plain, variant_forms
from agent.wrapped_lines import unwrap
from store.tokenize import STOPWORDS, has_cjk, tokens

# Question words and fillers that say nothing about the topic (beyond store STOPWORDS).
GENERIC = frozenset([
    "about", "any", "anything", "also", "are", "tell", "me", "please", "know", "does", "did",
    "do", "doing", "get", "got", "give", "go", "going", "just", "like", "more", "much", "need",
    "okay", "ok", "other", "some", "something", "thing", "things", "way", "want", "wanted",
    "show", "explain", "describe", "information", "info", "find", "question", "questions",
    "answer", "answers", "help", "us", "can", "could", "should", "would", "may", "might", "must",
    "there", "here", "very", "really", "only", "one", "ones", "lot", "lots", "many", "often",
    "usually", "still", "not", "no", "yes", "yeah", "well", "thanks", "thank", "hi", "hello",
    "hey", "sure", "right", "kind", "being", "been", "be", "am", "is", "was", "were", "has",
    "have", "had", "say", "said", "use", "used", "using", "make", "made", "meant", "mean",
    "means", "specifically", "clarifying", "sounds", "great", "maybe", "wow", "told", "true",
    "saying", "speaking", "see", "let", "lets", "interesting", "cool", "oh", "ah", "okay",
    "actually", "exactly", "else", "regarding", "cannot", "too", "though",
    "怎么办", "怎么样", "告诉", "一下", "可以", "能", "能否", "是否", "应该", "需要",
    "知道", "关于", "问题", "情况", "方面", "东西", "相关", "哪里", "还", "还是", "呢",
    "吗", "多少", "几", "是不是", "有没有", "一些", "如果", "那么", "所以", "但是",
    "因为", "然后", "时候", "时", "后", "前", "什么样", "是什么", "哪儿",
    "为何", "参考",
    # Pronouns and possessives: "my laptop", "our password" name the laptop and the password.
    "my", "mine", "myself", "ours", "ourselves", "yours", "yourself", "his", "him", "her",
    "hers", "theirs",
    # Inflections of the question words above: "who needs to sign", "what happens if".
    "needs", "needed", "wants", "gets", "ask", "asks", "asked", "asking", "happen", "happens",
    "happened", "knows", "tells", "says",
    # Prepositions that frame a time or a rate ("around national day", "per month", "during
    # my rotation"): they name nothing. A verb's particle stays a term: "paid out" in cash
    # is not "paid" (带薪), "sign off" not "sign".
    "around", "per", "during", "via",
    # The asker's adverbs, as "actually", "still" above ("pod 一直 CrashLoopBackOff",
    # "当时其实可以…吗"), and a time pointed at, not named ("那次故障", "当时"): the event
    # is named by the other words.
    "一直", "总是", "老是", "其实", "本来", "到底", "究竟",
    "那次", "这次", "上次", "那回", "这回", "当时", "那时", "那时候",
])
_HEDGE = re.compile(r"(一般|通常|平时|平常|大概|大约|大致|基本上)"
                    r"(?=\s*(?:是|为|要|会|需|都|在|多|几|能|可以|可|怎么|如何|用|有|先|不|没|就|得))")
# Chinese question words that jieba keeps whole ("几天", "哪几天", "多少个", "多久"): they ask
# for the value, they do not name the topic (agent.offline.asked reads what they ask for).
_ZH_ASKING = re.compile(r"^(?:哪|几|多少)[\u4e00-\u9fff]{0,2}$|^多(?:久|长|大|高|远|重)$")

# A full stop ends a sentence unless it closes an initial ("James K. Polk") or a title.
_SENT_END = re.compile(r"(?<=[。！？!?；;])|(?<=[.])(?<!\b[A-Z]\.)"
                       r"(?<!\b(?:Mr|Dr|St|Jr|Sr|Ms|Mt|vs|Lt|Fr)\.)"
                       r"(?<!\b(?:Mrs|Hon|Rev|Gen|Col|Gov|Sen|Rep|Sgt)\.)"
                       r"(?<!\b(?:Prof|Capt)\.)\s+(?=[A-Z0-9\"'(\[])|\n+")
# Starts only where a run of spaces starts and never gives spaces back, so a long run of
# spaces is read once rather than from each of its positions.
_CITE = re.compile(r"(?<!\s)\s*+\[(\d++)\]")
_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    """NFKC, case-folded, whitespace removed: the comparison form used by the eval too."""
    return _WS.sub("", unicodedata.normalize("NFKC", text).casefold())


def all_content_terms(text: str) -> list[str]:
    """Distinct words of ``text`` that are not stopwords nor generic question words, lone
    Chinese characters included (precise mode cuts "年假怎么申请" into 年 / 假 / 申请).
    Read as written plainly (``agent.wording.plain``): "whats" is no topic word, "on-call"
    is "oncall", and "more than" / "exceeding" are "above" (which "以上" holds: see
    ``term_set``)."""
    seen: dict[str, None] = {}
    words = tokens(plain(text), precise=True)
    for i, w in enumerate(words):
        if _is_month(w, words[i + 1:i + 2]):
            # "8月" names a month, not the number 8 that "8天" holds.
            seen.setdefault(w + "月", None)
        elif w not in GENERIC and w not in STOPWORDS and not _ZH_ASKING.match(w):
            seen.setdefault(w, None)
    return list(seen)


def _is_month(word: str, following: list[str]) -> bool:
    """A number from 1 to 12 that 月 follows: a month ("8月"), the term is the two."""
    return following == ["月"] and word.isdigit() and 1 <= int(word) <= 12


def content_terms(text: str) -> list[str]:
    """Distinct topic words of ``text`` (no stopwords, no generic question words).

    Matched against ``term_set`` of passages, which holds search-mode tokens: every precise
    word is among them."""
    seen = all_content_terms(text)
    # The asker's hedge before the verb ("账期一般是多久", "通常要几天"), as "usually" above: a
    # word of the topic only as a noun's modifier ("一般变更", "一般纳税人").
    hedges = {m.group(1) for m in _HEDGE.finditer(text)}
    seen = [w for w in seen if w not in hedges]
    # A lone Chinese character ("年", "里", "化") is rarely the topic; keep them only when
    # nothing else is left.
    longer = [w for w in seen if not (len(w) == 1 and has_cjk(w))]
    return longer or list(seen)


def term_set(text: str) -> set[str]:
    """The topic words ``text`` holds, in its own spelling and closed or threshold forms
    (``agent.wording.variant_forms``: "on-call" holds "oncall")."""
    return ({t for t in tokens(text) if t not in STOPWORDS and t not in GENERIC}
            | variant_forms(text))


# Per question term, other words that stand for it in a text: the KB's glossary synonyms
# and dictionary translations (store.glossary, store.crosslang), carried as
# Understanding.translated_terms.
Alternatives = Mapping[str, Sequence[str]]


def _holds(word: str, tokens_: set[str], flat: str) -> bool:
    """A plain Latin word is held as a token ("leave" is not in "cleaves"); a Chinese word,
    a phrase or a code ("Q3", "return rate") anywhere in the text, a hyphen read as the space
    it stands for ("on call" in "On-call engineers"). ``flat`` is the text normalized without
    hyphens."""
    if word.isascii() and word.isalpha():
        return word.lower() in tokens_
    return norm(word).replace("-", "") in flat


def term_hits(terms: list[str], text: str, alternatives: Alternatives | None = None
              ) -> set[str]:
    """The ``terms`` that occur in ``text``: as tokens for Latin words, as substrings for
    Chinese ones (jieba may cut an unknown name differently in another context), or through
    one of its ``alternatives`` (a glossary synonym: "第三季度" in "Q3"; a translation:
    "年假" is held by "annual leave")."""
    tokens_ = term_set(text)
    flat = norm(text)
    bare = flat.replace("-", "")
    alts = alternatives or {}
    return {t for t in terms if t in tokens_ or (has_cjk(t) and t in flat)
            or any(_holds(a, tokens_, bare) for a in alts.get(t, ()))}


def terms_of(text: str, query_terms_: list[str], alternatives: Alternatives | None = None
             ) -> set[str]:
    """Tokens of ``text`` plus the query terms it contains (see ``term_hits``)."""
    return term_set(text) | term_hits(query_terms_, text, alternatives)


def alternatives_per_term(terms: Sequence[str],
                          translations: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Each of ``terms``' translations: those of a translated word or phrase the term is
    part of ("年假" for "年假"; "annual leave" for "annual" and for "leave") or that is part
    of it. A lone Chinese character is too ambiguous to stand for a term."""
    out: dict[str, list[str]] = {}
    for t in terms:
        found: list[str] = []
        for source, words in translations.items():
            parts = source.split() if source.isascii() else [source]
            if t in parts or (has_cjk(t) and (t in source or source in t)):
                found.extend(w for w in words if not (len(w) == 1 and has_cjk(w)))
        if found:
            out[t] = list(dict.fromkeys(found))
    return out


def _joined(pieces: list[str], most: int = 3) -> list[str]:
    """The pieces of one line, those cut inside a parenthesis joined back ("Nicholas I (also
    known as "Niklot I"; before 1164 – 1200, near Wittendörp), was ..." is one sentence);
    at most ``most`` pieces are joined."""
    out: list[str] = []
    open_, joined = False, 0
    for piece in pieces:
        if open_ and joined < most:
            out[-1] += piece if piece[:1].isspace() else " " + piece
            joined += 1
        else:
            out.append(piece)
            joined = 0
        open_ = out[-1].count("(") > out[-1].count(")")
    return out


def idf_weights(terms: list[str], held: list[set[str]]) -> dict[str, float]:
    """Each term's weight: rarer among the ``held`` term sets (one per passage) is higher."""
    n = len(held) or 1
    return {t: math.log(1 + n / (1 + sum(1 for s in held if t in s))) + 0.1 for t in terms}


def weighted_share(terms: list[str], idf: dict[str, float], found: set[str]) -> float:
    """The idf-weighted share of ``terms`` in ``found``."""
    total = sum(idf[t] for t in terms) or 1.0
    return sum(idf[t] for t in terms if t in found) / total


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (Chinese and English punctuation, line breaks that end a line
    rather than wrap it: see ``agent.wrapped_lines``)."""
    out: list[str] = []
    # Markdown emphasis is layout, not content; it would also leak "**" into answers.
    text = unwrap(text).replace("**", "").replace("__", "")
    pieces = [p for line in text.split("\n") for p in _joined(_SENT_END.split(line))]
    for raw in pieces:
        piece = raw.strip(" \t-*#>|")
        if piece and len(norm(piece)) >= 4:
            out.append(piece)
    return out


def strip_citations(text: str) -> str:
    return _CITE.sub("", text).strip()


def coverage(query_terms_: list[str], text_terms: set[str]) -> float:
    """Share of ``query_terms_`` found in ``text_terms`` (1.0 for no query terms)."""
    if not query_terms_:
        return 1.0
    return sum(1 for t in query_terms_ if t in text_terms) / len(query_terms_)


def char_ngrams(text: str, n: int = 2) -> set[str]:
    s = norm(text)
    return {s[i:i + n] for i in range(max(len(s) - n + 1, 0))}


def ngram_containment(claim: str, source: str, n: int = 2) -> float:
    """Share of the claim's character n-grams present in ``source`` (language-independent)."""
    c = char_ngrams(claim, n)
    if not c:
        return 1.0
    return len(c & char_ngrams(source, n)) / len(c)


# A numbered item's opening marker: "1. ", "2、", "（3）", "4）", "1.登录" (Chinese documents
# often leave out the space), "①", "第一步：", "步骤 2：", "Step 3:".
_NUMBER = r"[一二三四五六七八九十\d]{1,3}"
NUMBERED_MARKER = (r"^\s*(?:\d{1,2}[.)]\s+|\d{1,2}[.．](?=[\u4e00-\u9fff])|\d{1,2}[、）]\s*|"
                   r"[（(]\d{1,2}[)）]\s*|[①-⑳]\s*|第" + _NUMBER + r"步[:：，,、.．]?\s*|"
                   r"步骤\s*" + _NUMBER + r"\s*[:：，,、.．]\s*|(?i:step)\s*\d{1,2}\s*[:：.)]\s*)")
# Any list item's marker: a number's, or a bullet ("- ", "• ").
ITEM_MARKER = re.compile(NUMBERED_MARKER[:-1] + r"|[-*•·]\s+)")
NUMBERED_ITEM = re.compile(NUMBERED_MARKER + r"\S")
LIST_ITEM = re.compile(ITEM_MARKER.pattern + r"\S")


def join_sentences(texts: list[str], language: str) -> str:
    """Sentences as one answer: list items (steps) one per line, in order; other sentences
    run on (no space between Chinese ones)."""
    out = ""
    for i, text in enumerate(texts):
        if i and (LIST_ITEM.match(text) or LIST_ITEM.match(texts[i - 1])):
            out += "\n"
        elif i and language != "zh":
            out += " "
        out += text
    return out
