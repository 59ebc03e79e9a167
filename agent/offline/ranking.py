"""Sentence ranking for the offline answers: which sentences of the pool say the most about
the question (idf-weighted terms, headings, the passage's fit, the kind of value asked for),
and which may never be quoted (instructions to an assistant, code, dangling lead-ins)."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.offline.amounts import asked_amounts, covering_floor
from agent.offline.answer_kinds import asked_kinds, holds_kind
from agent.offline.asked import (
    asks_command,
    asks_meaning,
    deadline_pattern,
    holds_command,
    holds_meaning,
    holds_value,
    kind_words,
)
from agent.offline.kinds import asked_section, asked_value, asking_words
from agent.offline.layout import is_lead_in, quotable_units
from agent.offline.pointers import is_pointer, is_section, section_pointed
from agent.offline.scope import asks_scope, describes_document
from agent.offline.sources import named_source, of_kind
from agent.offline.topic import has_pronoun
from agent.offline.versions import kind_of, period_fit, periods, superseded
from agent.state import GenerateInput, Passage
from agent.text import (
    Alternatives,
    idf_weights,
    norm,
    split_sentences,
    term_hits,
    terms_of,
    weighted_share,
)
from store.suspicious import is_suspicious, suspicious_spans
from store.tokenize import chinese_names, dictionary_word, has_cjk


def looks_like_instruction(sentence: str) -> bool:
    """An instruction to an assistant, a request for a secret, a payment redirect or a
    broadcast (the one detector, ``store.suspicious``): never quoted, never obeyed."""
    return is_suspicious(sentence)


def _in_flagged(sentence: str, flagged: list[str]) -> bool:
    """Whether ``sentence`` is part of a span its document flags as suspicious (a piece of
    an injected line is as unquotable as the whole line)."""
    key = norm(sentence)
    return any(key in span for span in flagged)


# How much more of the question a flagged span must hold than the best quotable sentence
# before the answer is "that passage looks injected" rather than the runner-up.
FLAGGED_MARGIN = 0.25


def flagged_outranks(inp: GenerateInput, terms: list[str], candidates: list[Candidate]) -> bool:
    """Whether the pool's best match for the question is a flagged span, well ahead of every
    quotable sentence: the only evidence is an injected instruction, and quoting the
    runner-up would answer something else."""
    alternatives = translated(inp)
    idf = pool_idf(terms, inp["passages"], alternatives)
    flagged = max((weighted_share(terms, idf, terms_of(span, terms, alternatives))
                   for p in inp["passages"] for span in suspicious_spans(p["text"])),
                  default=0.0)
    quotable = max((weighted_share(terms, idf, c[3]) for c in candidates), default=0.0)
    return flagged >= 0.5 and flagged > quotable + FLAGGED_MARGIN


def pool_idf(terms: list[str], passages: list[Passage],
             alternatives: Alternatives | None = None) -> dict[str, float]:
    """Each term's idf among the pool's passages (a translation holds its term too)."""
    return idf_weights(terms, [terms_of(p["title"] + " " + p["text"], terms, alternatives)
                               for p in passages])


def translated(inp: GenerateInput) -> Alternatives:
    """The question terms' translations (``Understanding.translated_terms``), if any."""
    return inp["understanding"].get("translated_terms") or {}


def senses(inp: GenerateInput) -> Alternatives:
    """The question terms' translations read wide (``Understanding.translated_senses``),
    else the narrow ones: what the refusal gate credits a term by."""
    u = inp["understanding"]
    return u.get("translated_senses") or u.get("translated_terms") or {}


_NUMERIC = re.compile(r"(多少|几|哪一年|哪年|何时|什么时候|\bhow (many|much|long|old)\b|"
                      r"\bwhat year\b|\bwhen\b)", re.I)
_DIGIT = re.compile(r"[0-9０-９一二三四五六七八九十百千万]")
_CODE = re.compile(r"^\s*(```|\$ |redis-cli|kubectl|SELECT |[a-z_]+\s*=\s*)")

Candidate = tuple[float, int, str, set[str]]


# A command line of any tool: a lower-case program name, then a --flag or -f option
# ("changectl list --service checkout", "tool -v run"), and no sentence punctuation.
_PROGRAM = re.compile(r"[a-z][\w.-]*")
_OPTION = re.compile(r"--?[a-z][\w-]*(?:=\S*)?")
_PROSE = re.compile(r"[。，,；;]|\.$")


def _is_command(sentence: str) -> bool:
    words = sentence.split()
    return (len(words) > 1 and bool(_PROGRAM.fullmatch(words[0]))
            and any(_OPTION.fullmatch(w) for w in words[1:])
            and not _PROSE.search(sentence.strip()))


def _is_code(sentence: str) -> bool:
    return (bool(_CODE.match(sentence)) or sentence.count("`") > 6
            or _is_command(sentence))


def set_aside(inp: GenerateInput) -> Callable[[str], bool]:
    """Whether a sentence is set aside for this attempt: the verifier rejected it, or the
    latest answer quoted it and the asker says that did not help (``Understanding.tried``)."""
    rejected = {norm(s) for s in inp["rejected"]}
    tried = norm(inp["understanding"].get("tried", ""))
    return lambda s: norm(s) in rejected or bool(tried and norm(s) in tried)


def passage_periods(p: Passage) -> set[str]:
    """The periods ``p``'s text names; with no year among them, its document's own year
    (the date a news report or a dated record carries: "第八届…鸣枪开跑" of 2025-03-17 is
    about 2025, though it never says so)."""
    found = periods(p["text"])
    if not any(kind_of(x) == "year" for x in found):
        found |= {y for y in periods(p.get("date", "")) if kind_of(y) == "year"}
    return found


def frame(p: Passage) -> str:
    """A passage's title and headings: what its sentences are about."""
    return " ".join([p["title"], *p["heading_path"]])


# Terms next to the question word count double in sentence scores: the first weight tried,
# it raised hotpotqa answer accuracy from 0.62 to 0.66 and left musique as it was.
FOCUS_WEIGHT = 2.0
# A word a follow-up's rewrite added from the thread to an ellipsis weighs half an asked word
# (the first weight tried).
CARRIED_WEIGHT = 0.5
# A sentence holding the kind of value asked for ("几天" / "8天") outranks one that only
# shares the topic words (chosen on half A of samplekb).
VALUE_BONUS = 0.3
# A sentence about the period the question names ("2025", "Q3") outranks its twin about
# another period; a superseded document's sentences fall below the current version's (set
# beforehand, not tuned: large enough to reorder twins that hold the same words).
PERIOD_WEIGHT = 0.3
SUPERSEDED_PENALTY = 0.6
# A sentence that sends the reader to another document ("see the VPN FAQ", "具体见《…》")
# names the topic without answering it (set beforehand, not tuned).
POINTER_PENALTY = 0.3
# A sentence whose amount band holds the amount asked about ("三万块" in "20000 元以上"),
# the tightest such band of the pool, counts like one holding the asked value (set
# beforehand, as VALUE_BONUS).
BAND_BONUS = VALUE_BONUS
# A sentence of the thread's cited document holding the thread's topic words, for a question
# asked as it stands, outranks its twin that holds the question's words equally; small
# enough never to outweigh one of the question's own words (set beforehand, not tuned).
THREAD_WEIGHT = 0.1
# How close to the best sentence one of the kind of document the question names as its
# source ("according to that runbook", "按公司规定"; ``agent.offline.sources``) must score
# to be taken before it.
SOURCE_SHARE = 0.4
# A sentence in which the document describes itself ("本规范适用于…", "This policy sets…")
# holds its topic's words without a detail of it (see agent.offline.scope): set beforehand
# above POINTER_PENALTY, since such a sentence holds the question's topic words by design.
SCOPE_PENALTY = 0.4
_WH = re.compile(r"\b(which|what|who|whom|whose|when|where)\b", re.I)


def focus_terms(question: str, terms: list[str]) -> set[str]:
    """The terms next to the question word: what is asked ("father to which Bollywood
    actress", "created by who") rather than how the subject is described."""
    words = re.findall(r"[\w'-]+", question.lower())
    found: set[str] = set()
    for i, w in enumerate(words):
        if _WH.fullmatch(w) and i > 0:
            found.update(words[max(i - 2, 0):i + 3])
    return {t for t in terms if t in found}


def name_terms(question: str, terms: list[str], language: str) -> list[str]:
    """The ``terms`` that name something (a company, a product, a person, a system): Chinese
    words jieba's dictionary does not hold (青岚, 星河X2) or tags as names, Latin words the
    question capitalises after its first word ("Qinglan New Energy", "VPN"), and in a
    Chinese question any Latin word. A document whose title names it speaks of it in every
    sentence, which need not repeat it: "董事长：程思远" in the report titled with the company."""
    chinese = set(chinese_names(question))
    latin = {w.lower() for w in re.findall(r"(?<=[\w,;:)] )[A-Z][\w-]*", question)}
    return [t for t in terms
            if (has_cjk(t) and (t in chinese or not dictionary_word(t)))
            or (not has_cjk(t) and not t.isdigit()
                and (t in latin or (language == "zh" and t.isascii())))]


def _titled_names(inp: GenerateInput, terms: list[str], alternatives: Alternatives
                  ) -> list[set[str]]:
    """Per passage, the names of the question (``name_terms``) its document's title holds."""
    named = name_terms(inp["question"], terms, inp["understanding"]["language"])
    return [term_hits(named, p["title"], alternatives) for p in inp["passages"]]


def embedded_terms(terms: list[str], language: str) -> set[str]:
    """The words a question borrows from the other language ("checkout" in "8月checkout那次
    故障持续了多久", "调休" in "What is 调休?"): an asker switches language for the name the
    documents use, of a system, an error or a policy, so it says what the question is about
    as much as the terms next to the question word. Numbers and codes belong to both."""
    if language == "zh":
        return {t for t in terms if t.isascii() and t.isalpha()}
    return {t for t in terms if has_cjk(t)}


def _tightest_band(amounts: list[float], passages: list[Passage]) -> float | None:
    """The lower bound of the pool's tightest band holding an asked amount, if any."""
    if not amounts:
        return None
    floors = [f for p in passages for s in split_sentences(p["text"])
              if (f := covering_floor(amounts, s)) is not None]
    return max(floors, default=None)


def _term_weights(inp: GenerateInput, terms: list[str], alternatives: Alternatives,
                  borrowed: set[str]) -> dict[str, float]:
    """Each term's weight in sentence scores: its idf in the pool, doubled next to the
    question word or borrowed from the other language, halved when a follow-up's rewrite
    added it from the thread to a question with no pronoun: an ellipsis' own words say what
    is asked now, the added ones only what it is about ("What about working from abroad?"
    after a question on remote work). Words that stand for a pronoun ("Can I apply for it
    after I come back?" after sick leave) are what is asked about, and weigh in full."""
    idf = pool_idf(terms, inp["passages"], alternatives)
    for t in focus_terms(inp["question"], terms) | borrowed:
        idf[t] *= FOCUS_WEIGHT
    u = inp["understanding"]
    if not has_pronoun(inp["question"], u["language"]):
        for t in set(u["implicit_context"]) & set(idf):
            idf[t] *= CARRIED_WEIGHT
    return idf


def rank_sentences(inp: GenerateInput, terms: list[str],
                   all_terms: list[str]) -> tuple[list[Candidate], list[float]]:
    """Every quotable sentence of the pool, best first, and each passage's fit.

    A sentence scores by the question's terms it holds (idf-weighted, those next to the
    question word double), its headings, how well its passage fits as a whole, and a digit
    when the question asks for a number, more when it holds the kind of value asked for
    ("8天" for "几天", "3 weeks" for "how long")."""
    passages = inp["passages"]
    aside = set_aside(inp)
    # The word that names the kind asked for ("命令" in "用啥命令") is no topic: a command
    # line never says "command", and its translations ("order") match other things.
    # So is the word naming the document asked to answer ("according to that runbook"):
    # a report that mentions "the change-management policy" is not the policy.
    terms, sourced = _topic_terms(inp, terms)
    borrowed = embedded_terms(terms, inp["understanding"]["language"])
    # A borrowed word is the documents' own name for the thing: held as written, not
    # through its translations ("root cause" is not any sentence giving a 原因).
    alternatives = {t: a for t, a in translated(inp).items() if t not in borrowed}
    idf = _term_weights(inp, terms, alternatives, borrowed)
    # How well each passage as a whole (title and headings included) fits, and its rank.
    fit = [weighted_share(terms, idf, terms_of(frame(p) + " " + p["text"], terms, alternatives))
           + 0.5 / (1 + p["rank"]) for p in passages]
    candidates: list[Candidate] = []
    wants_number = bool(_NUMERIC.search(inp["question"]))
    # A deadline is answered by a period or a date it runs to ("within your first year"),
    # not by any date or duration (a page's "Last updated", a voucher valid for 24 hours).
    value = deadline_pattern(inp["question"]) or asked_value(inp["question"])
    section = asked_section(inp["question"])
    holding: set[tuple[int, str]] = set()
    # Each sentence's fit to the period asked (versions.period_fit): its score and its order.
    period: dict[tuple[int, str], int] = {}
    asked_periods = periods(inp["question"])
    amounts = asked_amounts(inp["question"])
    tightest = _tightest_band(amounts, passages)
    old = superseded(passages)
    context = inp["understanding"].get("thread_context")
    thread = [t for t in context["words"] if t not in terms] if context else []
    thread_docs = set(context["doc_ids"]) if context else set()
    thread_idf = pool_idf(thread, passages, alternatives)
    # What the question is about, which a value answers only about: its words but those
    # asking who pays or why ("cover the cost", "what caused"), and the thread's for a
    # follow-up ("Will I have to pay for it?" after a lost laptop).
    topic = (set(terms) - asking_words(inp["question"])) | set(thread)
    scope = 0.0 if asks_scope(inp["question"]) else SCOPE_PENALTY
    # A question for a command is answered by a line of code, quoted only then; one asking
    # what something means by a sentence (or table row) that says a meaning.
    command = asks_command(inp["question"])
    meaning = asks_meaning(inp["question"])
    # Who, where, how soon, what happens: the sentence naming someone, a place, a time or a
    # consequence answers, and it sits in the document the question is about.
    kinds = asked_kinds(inp["question"])
    # A name the question gives that a passage's title holds (the company of an annual
    # report) is held by every sentence of it: the name alone picks no sentence there.
    titled = _titled_names(inp, terms, alternatives)
    for n, p in enumerate(passages, start=1):
        # The passage's title and headings, read once for all its sentences.
        frame_terms = terms_of(framing := frame(p), terms, alternatives)
        around = passage_periods(p) if asked_periods else set()
        flagged = [norm(span) for span in suspicious_spans(p["text"])]
        own = p["heading_path"][-1] if p["heading_path"] else ""
        comments = code_comments(p["text"]) if command else {}
        for unit in quotable_units(p["text"], split_sentences, heading=own):
            s = unit.text
            if (looks_like_instruction(s) or _in_flagged(s, flagged) or aside(s)
                    or (_is_code(s) and not (command and holds_command(s)))
                    or is_lead_in(s)):
                continue
            st = terms_of(unit.about, all_terms, alternatives)
            heading = unit.heading or own
            if command and _is_code(s):
                # A line of code says what it does by its section's heading ("查看积压") and
                # by the comment above it ("# 查询最近变更").
                st |= terms_of(f"{heading} {comments.get(s.strip(), '')}", all_terms,
                               alternatives)
            # Headings count: a step under "Redis 内存满了怎么办" is about Redis memory (a
            # plain-text document's headings too).
            framed = frame_terms | (terms_of(unit.heading, terms, alternatives)
                                    if unit.heading else set())
            # The thread's words this sentence holds, for a follow-up.
            held_thread = terms_of(unit.about, thread, alternatives) if thread else set()
            # "CNY 2 million" in a returns report does not say whether a stolen bike is
            # covered.
            if ((value is not None and holds_value(value, s, inp["question"])
                 and (not topic or (st | framed | held_thread) & topic))
                    or (section is not None and section.search(heading))
                    or (command and holds_command(s)) or (meaning and holds_meaning(s))):
                holding.add((n, s))
            period[(n, s)] = period_fit(asked_periods, s, framing, around)
            score = (weighted_share(terms, idf, st | titled[n - 1])
                     + 0.3 * weighted_share(terms, idf, st | framed)
                     + 0.4 * fit[n - 1] + (0.15 if wants_number and _DIGIT.search(s) else 0)
                     + (VALUE_BONUS if (n, s) in holding else 0)
                     + PERIOD_WEIGHT * period[(n, s)]
                     - (SUPERSEDED_PENALTY if p["doc_id"] in old else 0.0)
                     - (POINTER_PENALTY if is_pointer(s) else 0.0)
                     - (scope if describes_document(s) else 0.0)
                     + (BAND_BONUS if tightest is not None
                        and covering_floor(amounts, s) == tightest else 0.0)
                     + (THREAD_WEIGHT * weighted_share(thread, thread_idf, held_thread)
                        if p["doc_id"] in thread_docs else 0.0))
            candidates.append((score, n, s, st))
    candidates = follow_section(source_first(period_first(
        sorted(candidates, key=lambda c: (-c[0], c[1])), period, set(terms)), sourced,
        set(terms)), passages)
    if kinds:
        # The documents the thread answered from: cited for a question asked as it stands,
        # or carried from for a follow-up.
        cited = thread_docs | set(inp["understanding"].get("carried_from") or [])
        return kind_first(candidates, lambda c: ((c[1], c[2]) in holding
                                                 or holds_kind(kinds, c[2])),
                          [p["doc_id"] for p in passages], cited, set(terms)), fit
    return value_first(candidates, lambda c: (c[1], c[2]) in holding), fit


def _topic_terms(inp: GenerateInput, terms: list[str]) -> tuple[list[str], list[bool]]:
    """``terms`` but the words naming the kind of answer (``kind_words``) or the kind of
    document to answer from (``agent.offline.sources``: "that runbook"), and per passage
    whether its document is of that kind."""
    kind = kind_words(inp["question"])
    source = named_source(inp["question"])
    sourced = [source is not None and of_kind(p, source.kind) for p in inp["passages"]]
    if source is not None:
        kind = kind | {source.word}
    return [t for t in terms if t not in kind] or terms, sourced


def period_first(candidates: list[Candidate], period: dict[tuple[int, str], int],
                 terms: set[str]) -> list[Candidate]:
    """``candidates`` with those about another period than the question names (a year, an
    edition: ``period``, each sentence's ``versions.period_fit``, -1) last, when one about
    the asked period holds one of its ``terms``: "Who won the women's race at the 2025
    marathon?" is not answered by the 2026 report's winner, however many of its words that
    report repeats. With nothing about the asked period, the order stands (what a refusal
    shows as the closest)."""
    if not any(period[(c[1], c[2])] > 0 and c[3] & terms for c in candidates):
        return candidates
    return ([c for c in candidates if period[(c[1], c[2])] >= 0]
            + [c for c in candidates if period[(c[1], c[2])] < 0])


def follow_section(candidates: list[Candidate], passages: list[Passage]) -> list[Candidate]:
    """``candidates`` with the best sentence of the section the best one sends the reader to
    first ("`mem_fragmentation_ratio` 大于 1.5：说明内存碎片严重，见第 4 节" names the case;
    section 4 of the same document says what to do), when the pool holds that section."""
    if not candidates:
        return candidates
    number = section_pointed(candidates[0][2])
    if number is None:
        return candidates
    doc = passages[candidates[0][1] - 1]["doc_id"]
    there = next((c for c in candidates if passages[c[1] - 1]["doc_id"] == doc
                  and is_section(passages[c[1] - 1], number)), None)
    if there is None:
        return candidates
    return [there, *(c for c in candidates if c is not there)]


def source_first(candidates: list[Candidate], sourced: list[bool], terms: set[str]
                 ) -> list[Candidate]:
    """``candidates`` with those of the documents the question names as its source (per
    passage, ``sourced``) first, when they hold one of the question's ``terms`` and score
    at least ``SOURCE_SHARE`` of the best: "what does the policy actually say" is answered
    by the policy's rule, not by the incident report that mentions it."""
    if not candidates:
        return candidates
    floor = SOURCE_SHARE * candidates[0][0]
    first = [c for c in candidates if sourced[c[1] - 1] and c[0] >= floor and c[3] & terms]
    return [*first, *(c for c in candidates if c not in first)]


_FENCE = re.compile(r"^\s*(```|~~~)")


def code_comments(text: str) -> dict[str, str]:
    """Each line of ``text``'s code blocks with the comment line right above it ("# 查询最近
    变更" over "changectl list --since 24h"): what the command does, in words."""
    out: dict[str, str] = {}
    fenced, comment = False, ""
    for line in text.splitlines():
        stripped = line.strip()
        if _FENCE.match(line):
            fenced, comment = not fenced, ""
        elif fenced and stripped.startswith("#"):
            comment = stripped.lstrip("#").strip()
        elif fenced and stripped:
            if comment:
                out[stripped] = comment
            comment = ""
    return out


# How far down the ranking a sentence holding the kind of value asked for is taken first.
VALUE_WITHIN = 5


def kind_first(candidates: list[Candidate], holds: Callable[[Candidate], bool],
               doc_ids: list[str], thread_docs: set[str], terms: set[str]) -> list[Candidate]:
    """``candidates`` with the best sentence that ``holds`` the kind asked for (who, where,
    how soon, what happens) moved to the front, looked for first in the best sentence's
    document, then in the thread's documents, then among the first ``VALUE_WITHIN``: "who do
    I report a lost laptop to" is answered by the runbook's step naming #it-help, not by its
    opening, and not by another document's sentence naming a manager. A sentence of the
    thread's documents must also hold one of the question's ``terms``: the thread may have
    moved on from them."""
    if not candidates or holds(candidates[0]):
        return candidates
    top = doc_ids[candidates[0][1] - 1]
    found = (next((c for c in candidates if doc_ids[c[1] - 1] == top and holds(c)), None)
             or next((c for c in candidates if doc_ids[c[1] - 1] in thread_docs
                      and holds(c) and c[3] & terms), None))
    if found is not None:
        return [found, *(c for c in candidates if c is not found)]
    return value_first(candidates, holds)


def value_first(candidates: list[Candidate],
                holds: Callable[[Candidate], bool]) -> list[Candidate]:
    """``candidates`` with the best of the first ``VALUE_WITHIN`` that ``holds`` the kind of
    value asked for moved to the front, when the best one holds none: "几号发工资" is
    answered by "每月 10 日…", not by the sentence that repeats "工资" with no day in it; "why"
    by the item under "Top reasons", not by the sentence restating what is explained."""
    if not candidates or holds(candidates[0]):
        return candidates
    holding = next((c for c in candidates[:VALUE_WITHIN] if holds(c)), None)
    if holding is None:
        return candidates
    return [holding, *(c for c in candidates if c is not holding)]
