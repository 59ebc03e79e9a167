"""Topics in threads: is a question a follow-up, what does it refer to, how is it rewritten.

A question is read as a follow-up from two kinds of evidence. Its words: a pronoun or a
demonstrative ("it", "they", "它", "这样"), or an opening that continues ("what about", "那").
And retrieval: the node searches the question alone first (``TopicEvidence``); a question
whose own words find a passage holding enough of them names its own topic and stays as
asked, even in a thread, while one that finds nothing convincing leans on the thread.
A follow-up is rewritten from the thread's latest answered turn (its referent is usually
the nearest one): a pronoun is replaced by that turn's topic, an ellipsis gets it added.
"""

from __future__ import annotations

import re
from typing import Literal

from agent.offline.answerable import REFUSE_BELOW, evidence_coverage, held_terms
from agent.state import Language, Passage, TopicEvidence, Turn
from agent.text import Alternatives, content_terms, norm
from agent.wording import plain
from store.joined_words import GRAMMATICAL
from store.tokenize import chinese_nouns, has_cjk, language_of, normalize, tokens

# Pronouns that cannot be resolved inside the question itself: always a follow-up.
_PRONOUN_EN = re.compile(r"\b(it|its|they|them|their|theirs|he|she|his|her|him)\b", re.I)
_PRONOUN_ZH = re.compile(r"(它们|它|他们|她们|他|她)")
# Demonstratives and continuing words: a follow-up unless the question names its own topic.
_REFER_EN = re.compile(
    r"\b(those|these|that|this|the same|such|above|former|latter|ones?|there|else|other|"
    r"another|more|steps?|again|next|previous)\b", re.I)
# 还 points back when it means "also" ("还要交什么？"), not when it means "still" or "yet"
# before a negation, a modal or 在 ("用了三年还能保修吗？", "半小时还没人接会怎样？"): that one
# says how long something has lasted, not that another thing is asked.
_REFER_ZH = re.compile(r"(这个|那个|这些|那些|其|该|上述|此|这种|那种|这样|那样|刚才|上面|前面|"
                       r"还(?![没不未能在])|也|另外|其他|呢[？?]?$)")
# Openings that point back themselves: "what about the gym?" asks the earlier question of
# something else.
_START_EN = re.compile(r"^\s*(what about|how about|is that|are those|is this|are these|"
                       r"any other)\b", re.I)
# Openings that join the question to the conversation ("and", "so", "那", "如果") without
# pointing at anything: what follows leans on the thread only when it names no topic of its
# own ("那最晚多久？", "And why?"); "如果供应商开不了专用发票怎么办？" asks its own question.
_GLUE_EN = re.compile(r"^\s*(and|but|also|so|then|what if|why)\b", re.I)
_GLUE_ZH = re.compile(r"^\s*(那|那么|还有|另外|如果|要是|而且|并且|但是|可是|为什么)")
# Openings that announce a new topic: what follows stands alone unless a pronoun points back.
_NEW_TOPIC_EN = re.compile(r"^\s*(by the way|btw|unrelated(ly)?|on another note|"
                           r"changing the subject|(a |one )?(different|separate|new) question)\b",
                           re.I)
_NEW_TOPIC_ZH = re.compile(r"^\s*(对了|顺便问一?下|顺便问|换个话题|换个问题|另外问一?下|"
                           r"问个别的|另一个问题)")
# "By the way" said after the question ("whats the max size for one key btw") sets it aside
# from the thread as it does before it.
_ASIDE_EN = re.compile(r"\b(btw|by the way)\b", re.I)
# "另外" opens another matter ("besides, …"): before a question that names a topic of its own
# it starts a new one, as "对了" does; before a slot or a word that points back it continues.
_ANOTHER_ZH = re.compile(r"^\s*另外")
# A noun phrase closed by 呢 asks "what about …?" of the thread ("审批流程呢？"), as "what about"
# does in English; one that asks its own question (a question word, a verb of asking) does not.
_WHAT_ABOUT_ZH = re.compile(r"^\s*([^，,。？?！!\s]{1,8})呢\s*[？?]?\s*$")
_ASKS_ZH = re.compile(r"(什么|怎么|怎样|如何|几|多少|谁|哪|吗|是否|能否|可以|要不要|为何|为啥)")
# A phrase fronted before the comma names the topic the pronoun after it stands for:
# "Speaking of the Celts, what is their importance?", "and sick leave, is that paid?",
# "关于年假，它能顺延吗？". A noun phrase, not a clause: it starts with no question word or
# conjunction of a clause ("If I travel, do I need it?" leaves "it" to the thread) and
# holds no pronoun of its own. "As for X," / "至于X，" are left out: they often set a new
# value beside the earlier question's ("至于二线城市，这个标准是多少？").
_FRONTED_EN = re.compile(
    r"^\s*(?:(?:speaking|talking) (?:of|about)|going back to|back to|regarding|and)?"
    r"\s*([^,;:?!]+?)\s*,\s*(\S.*)$", re.I)
_FRONTED_ZH = re.compile(r"^\s*(?:关于|说到|说起|回到)([^，,。？?！!]{2,12})[，,]\s*(\S.*)$")
_CLAUSE_EN = re.compile(
    r"^(what|who|whom|whose|which|when|where|why|how|is|are|was|were|do|does|did|can|could|"
    r"will|would|should|shall|may|might|must|have|has|had|if|once|unless|because|since|"
    r"after|before|while|though|although|so|then|but|also|alright|hmm+|well|right|oh|ah|"
    r"um+|uh+|i|we|you|my|our|your|"
    # a circumstance, not a thing: "and in Tier 2 cities, is it 550?" asks the thread's
    # question of another place
    r"in|for|at|on|during|with|without|from|to|by|under|within|over|outside|inside)\b", re.I)
# A phrase ending in a preposition names nothing yet ("Along with, is there …?").
_OPEN_ENDED_EN = re.compile(r"\b(with|of|to|for|about|on|in|at|from|by|as)\s*$", re.I)
# Words that still ask the earlier question of the fronted thing: "and for contractors, is
# it the same?".
_AGAIN_EN = re.compile(r"\b(same|else|other|another|too|also|again|either)\b", re.I)
_AGAIN_ZH = re.compile(r"(也|还|一样|同样|其他|别的)")
# A demonstrative that stands for the earlier topic and is replaced by it in the rewrite.
_STANDS_FOR_EN = re.compile(r"\b(it|them|they|this|that)\b", re.I)
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_STANDS_FOR_ZH = re.compile(r"(它们|它|这个|那个|这种|那种|这样|那样)")

# How a question's own words tie it to the thread (``refers_back``).
Cue = Literal["firm", "weak", "glue", "new"]

MAX_BORROWED = 4
# A question with more topic words than this names its own topic: one the KB does not hold
# is refused as asked, not answered from the thread's documents.
SHORT = 2
# The search of the question alone convinces when one of its first passages holds it.
CONFIDENT_WITHIN = 3


def has_pronoun(question: str, language: Language) -> bool:
    """A pronoun whose referent must be an earlier turn's ("Does the company cover it?")."""
    pattern = _PRONOUN_ZH if language == "zh" else _PRONOUN_EN
    return bool(pattern.search(question))


def refers_back(question: str, language: Language, n_terms: int) -> Cue | None:
    """How the question's words continue the thread: ``"firm"`` for a pronoun, an opening
    like "what about", a bare "…呢？", or a joining opening with a demonstrative or a
    closing 呢 ("如果…呢？", "So what's next?"), ``"weak"`` for a
    demonstrative or "also" in a short question (a long question with "that" names its own
    topic), ``"glue"`` for an opening that only joins it to the conversation ("and", "那",
    "如果"), ``"new"`` for one that announces another topic ("对了", "by the way" before or
    after the question, "另外" before more than ``SHORT`` words of its own), ``None`` for
    none of these."""
    pronoun = has_pronoun(question, language) and not _names_its_antecedent(question, language)
    announced = (_NEW_TOPIC_ZH if language == "zh" else _NEW_TOPIC_EN).match(question) or \
        (language == "en" and _ASIDE_EN.search(question))
    if _fronts_its_topic(question, language) or (announced and not pronoun):
        return "new"
    if pronoun:
        return "firm"
    glue, refer = (_GLUE_ZH, _REFER_ZH) if language == "zh" else (_GLUE_EN, _REFER_EN)
    joined = glue.match(question)
    # Two signs together are firm: "So what is the next one?", "那这个也要审批吗？", and a
    # closing 呢 after "如果" asks "what if …?" of the earlier question ("如果联系不上呢？").
    # The sign is read after the opening: "另外" and "还有" are no demonstratives themselves.
    if _asks_about(question, language) or (joined and refer.search(question[joined.end():])):
        return "firm"
    if language == "zh" and _ANOTHER_ZH.match(question) and \
            len(content_terms(question[joined.end():] if joined else question)) > SHORT:
        return "new"
    if refer.search(question) and n_terms <= 4:
        return "weak"
    return "glue" if joined else None


def _fronts_its_topic(question: str, language: Language) -> bool:
    """A pronoun or demonstrative whose antecedent the question fronts itself ("Going back
    to primary sources, can they be used in literature?"): it names its own topic."""
    fronted = (_FRONTED_ZH if language == "zh" else _FRONTED_EN).match(question)
    if fronted is None:
        return False
    phrase, rest = fronted.group(1), fronted.group(2)
    refer, again = (_REFER_ZH, _AGAIN_ZH) if language == "zh" else (_REFER_EN, _AGAIN_EN)
    if language == "en" and (_CLAUSE_EN.match(phrase) or _OPEN_ENDED_EN.search(phrase)
                             or len(phrase.split()) > 6):
        return False
    if not content_terms(phrase) or has_pronoun(phrase, language) or refer.search(phrase):
        return False
    points = (_STANDS_FOR_ZH if language == "zh" else _STANDS_FOR_EN).search(rest)
    return bool(has_pronoun(rest, language) or points) and not again.search(rest)


# A sentence that acknowledges an answer names nothing ("好的，谢谢。", "明白了。").
_THANKS_ZH = re.compile(r"(谢谢|多谢|感谢|明白|了解|知道了|收到|好的)")
# Where a message's sentences end: "I forgot my password. How do I reset it?"
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")


def _names_its_antecedent(question: str, language: Language) -> bool:
    """A pronoun whose antecedent an earlier sentence of the same message names: "I forgot
    my password. How do I reset it?", "我的电脑丢了。它里面有客户资料怎么办？". The
    pronoun stands for that sentence's thing, not the thread's, when that sentence has words
    of its own and no pronoun or demonstrative pointing back itself ("I tried that. Is it
    still broken?" still leans on the thread)."""
    pieces = [p for p in _SENTENCE_END.split(question.strip()) if p]
    first = next((i for i, p in enumerate(pieces) if has_pronoun(p, language)), 0)
    if first == 0:
        return False
    refer = _REFER_ZH if language == "zh" else _REFER_EN
    before = pieces[:first]
    if any(refer.search(p) for p in before):
        return False
    if language == "zh":
        return any(len(w) >= 2 for p in before if not _THANKS_ZH.search(p)
                   for w in chinese_nouns(p))
    return any(len(content_terms(p)) >= 2 for p in before)


def _asks_about(question: str, language: Language) -> bool:
    """"What about …?" / "X呢？": the earlier question asked of something else."""
    if language == "en":
        return bool(_START_EN.match(question))
    about = _WHAT_ABOUT_ZH.match(question)
    return bool(about and not _ASKS_ZH.search(about.group(1)))


def _foreign(term: str, language: Language) -> bool:
    """A word of the other language: Chinese in English, a Latin word in Chinese (a code
    or a number, "Q3", "2026", belongs to both)."""
    return has_cjk(term) if language == "en" else term.isascii() and term.isalpha()


def _answered(history: list[Turn]) -> list[Turn]:
    """Turns with a topic to lend: a refused turn (an injection attempt, a question the KB
    does not answer) lends nothing."""
    return [t for t in history if not t["refused"]]


def last_answered(history: list[Turn]) -> Turn | None:
    """The thread's latest turn with a topic to lend, if any."""
    turns = _answered(history)
    return turns[-1] if turns else None


# A question that asks the earlier one again of another thing or case, and nothing else:
# "如果用了持久化还不行呢", "那内存碎片率很高呢？", "what about contractors?", "what if it fails?".
_ELLIPSIS_ZH = re.compile(r"呢\s*[？?]?\s*$")
_ELLIPSIS_EN = re.compile(r"^\s*(?:and\s+)?(?:what about|how about|what if|and if|and for)\b",
                          re.I)


def asks_again(question: str, language: Language) -> bool:
    """``question`` is an ellipsis: the earlier question asked of another thing or case."""
    if language == "zh":
        return bool(_ELLIPSIS_ZH.search(question)) and not _ASKS_ZH.search(question)
    return bool(_ELLIPSIS_EN.match(question))


def topic_terms(history: list[Turn], limit: int = MAX_BORROWED,
                language: Language | None = None, parallel: bool = False) -> list[str]:
    """What the thread's latest answered turn was about: its own terms, those its answer
    repeats first (the answer confirms them as the topic), then the terms that turn had
    itself borrowed, then its cited title when the title shares one of its terms (a title
    found by a wrong guess would otherwise steer every later turn).

    For a question in ``language`` after a turn asked in the other one ("Is it refunded
    too?" after "出差打车能报销吗？"), the topic is named in the asker's language when the
    cited document's title is in it ("Travel Expense Policy"): a Chinese word in an
    English query finds nothing in the English documents the thread was answered from.

    With ``parallel``, the question is an ellipsis after an ellipsis ("那内存碎片率很高呢？"
    after "如果用了持久化还不行呢"): it asks the thread's question of a new case in place of
    the earlier one, so the topic is what that turn had itself borrowed, not its case."""
    turns = _answered(history)
    if not turns:
        return []
    last = turns[-1]
    own = [t for t in last["entities"] if t]
    said = norm(last["answer"])
    ranked = [t for t in own if norm(t) in said] + [t for t in own if norm(t) not in said]
    asked = set(content_terms(last["question"]))
    inherited = [t for t in content_terms(last["rewritten"]) if t not in asked and t not in own]
    if parallel and inherited and asks_again(last["question"], language_of(last["question"])):
        ranked = []
    out = list(dict.fromkeys([*ranked, *inherited]))
    for doc in last["cited"][:1]:
        title = content_terms(doc["title"])
        if any(norm(t) in norm(doc["title"]) for t in own):
            out.extend(t for t in title if t not in out)
        elif language is not None and language_of(doc["title"]) == language and \
                any(_foreign(t, language) for t in own):
            # The other language's words cannot name the topic in this one; the title the
            # answer came from does.
            out = [*title, *(t for t in out if not _foreign(t, language))]
    return out[:limit]


def rewrite(question: str, language: Language, borrowed: list[str]) -> str:
    """``question`` with the thread's topic in place of its first pronoun or demonstrative
    ("Does the company cover it?" -> "Does the company cover broken monitor?"), or, with none,
    added to it (an ellipsis: "如果10分钟内联系不到呢？")."""
    if not borrowed:
        return question
    phrase = " ".join(borrowed)
    pattern = _STANDS_FOR_ZH if language == "zh" else _STANDS_FOR_EN
    replaced, n = pattern.subn(phrase, question, count=1)
    if n:
        return replaced
    return f"{'，'.join(borrowed)}，{question}" if language == "zh" else f"{question} {phrase}"


def split_words(question: str, passages: list[str]) -> list[str]:
    """Chinese words the segmenter does not know, read back from the documents: it cuts
    "年假能顺延吗？" into 年 / 假能 / 顺延 (or 年 / 假 / …), so the question seems to name no
    leave at all. The tokenizer joins two lone characters that CC-CEDICT lists
    (``store.joined_words``); a lone character whose next character
    jieba joined to the word after it is read here: the two are a word when one of
    ``passages`` (normalized text) holds them together and neither is a grammatical one."""
    out: list[str] = []
    for run in _CJK_RUN.findall(normalize(plain(question))):
        at, taken = 0, 0
        for word in tokens(run, precise=True):
            at = run.index(word, at)
            pair = run[at:at + 2]
            if len(word) == 1 and len(pair) == 2 and not GRAMMATICAL & set(pair) and \
                    at >= taken and any(pair in p for p in passages):
                out.append(pair)
                taken = at + 2  # its second character starts no word of its own
            at += len(word)
    return list(dict.fromkeys(out))


def topic_evidence(question: str, found: list[Passage], history: list[Turn],
                   alternatives: Alternatives | None = None) -> TopicEvidence:
    """What the search of ``question`` alone (``found``, best first) says about its topic:
    ``confident`` when one of the first passages holds enough of the question's own terms
    to answer from, two of them at least (one word rarely names a topic by itself), and
    ``overlap`` when the search found a document the thread's latest answer cited. A word
    the segmenter split into characters counts as a term when one of those passages holds
    it whole."""
    top = found[:CONFIDENT_WITHIN]
    terms = content_terms(question)
    flat = [norm(p["title"] + " " + p["text"]) for p in top]
    terms += [w for w in split_words(question, flat) if not any(w in t for t in terms)]
    language = language_of(question)
    best = evidence_coverage(terms, top, several=False, alternatives=alternatives)
    most_held = max((len(held_terms(p["title"] + " " + p["text"], terms, alternatives)
                         & set(terms)) for p in top), default=0)
    confident = most_held >= 2 and best >= REFUSE_BELOW[language]
    turns = _answered(history)
    cited = {d["doc_id"] for d in turns[-1]["cited"]} if turns else set()
    return TopicEvidence(confident=confident,
                         overlap=any(p["doc_id"] in cited for p in found[:CONFIDENT_WITHIN]))
