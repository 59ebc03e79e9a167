"""The question's anchors: the specific things it is about, read from their form.

"What is the guest Wi-Fi password at the Berlin office?" is about Berlin; "guest", "password"
and "office" are the topic any office's page shares. A sentence about the Shanghai office
holds all of the topic words and still answers another question. Names are told from
generic words by how they are written: a capital letter inside an English sentence, an
acronym or a code ("P4", "Q3", "Tier 4"), a quoted name, a Latin word inside a Chinese
question, and the place, person and organisation names jieba tags in Chinese.
"""

from __future__ import annotations

import re
import unicodedata

import rjieba

from agent.offline.near import near
from agent.text import GENERIC, Alternatives
from store.tokenize import STOPWORDS, has_cjk

_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")
_SENTENCE_END = re.compile(r"[.?!。？！:：]\s*$")
# A code: a letter or two and a number ("P4", "Q3", "v2"), or a capitalised word and a
# number ("Tier 4", "Building 3").
_CODE = re.compile(r"\b[A-Za-z]{1,2}\d{1,3}\b|\b[A-Z][a-z]+[ -]\d{1,3}\b(?![-:./]\d)")
_QUOTED = re.compile(r"[“\"《「]([^”\"》」]{2,30})[”\"》」]")
# Capitalised words that name a time or a value, not the question's subject.
_NOT_NAMES = frozenset([
    "i", "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday"])
# Chinese tags of names (jieba): places, organisations, other proper nouns, transliterated
# names. Not "nr": jieba's dictionary tags common nouns with it too ("籍贯").
_NAME_TAGS = frozenset(["ns", "nt", "nz", "nrt"])
# "浙江省" is named by "浙江" as well.
_ADMIN_SUFFIX = re.compile(r"(?<=..)(?:省|市|县|区|镇|村)$")


def anchors(question: str) -> list[str]:
    """The names and codes ``question`` is about, lower-cased, in the order asked.

    An acronym ("OSG", "USA") is left out: askers type them loosely ("MSL" for MLS) and
    documents spell them out, so one no passage holds is no evidence the thing is absent."""
    found: list[str] = [m.group(0).lower() for m in _CODE.finditer(question)]
    found += [m.group(1).strip().lower() for m in _QUOTED.finditer(question)]
    if has_cjk(question):
        for word, tag in rjieba.tag(question):
            if (tag in _NAME_TAGS and len(word) >= 2) or (tag == "eng" and len(word) >= 2):
                found.append(word.lower())
    else:
        for m in _WORD.finditer(question):
            word = m.group(0)
            opens = not question[:m.start()].strip() or bool(
                _SENTENCE_END.search(question[:m.start()]))
            named = word[0].isupper() and not opens and len(word) >= 2
            if named and not word.isupper() and word.lower() not in _skipped():
                found.append(word.lower())
    # A word inside a code or a quoted name is not an anchor of its own.
    out = list(dict.fromkeys(found))
    return [a for a in out if not any(a != b and a in b.split() for b in out)]


# Nouns naming a kind of place or unit whose members are told apart by a name before them
# ("the Berlin office", "Tier 4 cities").
_CATEGORY = re.compile(r"\s+(?:offices?|teams?|departments?|city|cities|branch|campus|stores?|"
                       r"sites?|warehouse|lines?|products?|plans?|regions?|projects?|"
                       r"building|floor)\b", re.I)


def subject_anchors(question: str) -> list[str]:
    """The anchors (see ``anchors``) an answer sentence must name itself: codes, quoted and
    Chinese names, and an English name before a category noun ("the Berlin office"). Other
    capitalised words ("the Celts", "the American Revolution") name the topic a whole
    passage is about, so a sentence of it need not repeat them."""
    out = anchors(question)
    if has_cjk(question):
        return out
    strict = {m.group(0).lower() for m in _CODE.finditer(question)}
    strict |= {m.group(1).strip().lower() for m in _QUOTED.finditer(question)}
    strict |= {m.group(0).lower() for m in _WORD.finditer(question)
               if _CATEGORY.match(question, m.end())}
    return [a for a in out if a in strict]


def _skipped() -> frozenset[str]:
    return _NOT_NAMES | STOPWORDS | GENERIC


def holds(text: str, anchor: str, alternatives: Alternatives | None = None) -> bool:
    """Whether ``text`` names ``anchor``: itself (spaces and hyphens aside, a Latin name as
    a whole word) or one of its ``alternatives`` (a translation, a glossary synonym)."""
    spaced = _spaced(text)
    flat = spaced.replace(" ", "")
    for form in [anchor, _ADMIN_SUFFIX.sub("", anchor), *(alternatives or {}).get(anchor, ())]:
        key = _spaced(form)
        if not key:
            continue
        if has_cjk(key):
            if key.replace(" ", "") in flat:
                return True
        elif any(re.search(rf"(?<![a-z0-9]){re.escape(k)}(?![a-z0-9])", spaced)
                 for k in {key, key.replace(" ", "")}):
            return True
    # A name typed with a slip ("Carollina") or inflected ("Celtic" / "Celts") still names it.
    return anchor.isascii() and anchor.isalpha() and any(
        near(anchor, w) for w in re.findall(r"[a-z]+", spaced))


def named_in(text: str, anchor: str) -> bool:
    """Whether ``text`` itself names ``anchor`` as a name: a Latin word capitalised there
    too ("the Berlin office"), a code or a Chinese name as written. A word the text holds
    only in lower case ("national holidays") or only through a translation is not named
    there as the question names it."""
    if anchor.isascii() and anchor.isalpha():
        first, rest = re.escape(anchor[0].upper()), re.escape(anchor[1:])
        return re.search(rf"(?<![A-Za-z0-9]){first}(?i:{rest})(?![A-Za-z0-9])", text) is not None
    return holds(text, anchor)


def _spaced(text: str) -> str:
    """Lower-cased, compatibility forms folded, hyphens and runs of spaces as one space."""
    return re.sub(r"[\s_-]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()
