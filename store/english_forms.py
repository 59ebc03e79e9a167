"""English word forms for dictionary lookup and for the keyword index.

CC-CEDICT glosses bare verbs and singular nouns in American spelling; questions and
documents inflect words and may spell them the British way. These functions give the forms
a word may be looked up as (``lemmas``) or found as (``english_forms``); the dictionary or
the index decides which form is a word.
"""

from __future__ import annotations

import functools


def _singular(word: str) -> str:
    """``word`` without a plural ending ("databases" -> "database"), for dictionary lookup."""
    for plural, single in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if len(word) > len(plural) + 2 and word.endswith(plural) and not word.endswith("ss"):
            return word[: -len(plural)] + single
    return word


# Past forms of common irregular verbs ("how long are backups kept", "who paid", "stolen"):
# no ending to strip, so the verb is named.
_IRREGULAR = {
    "kept": "keep", "paid": "pay", "sent": "send", "spent": "spend", "lent": "lend",
    "stolen": "steal", "stole": "steal", "taken": "take", "took": "take", "given": "give",
    "gave": "give", "bought": "buy", "brought": "bring", "built": "build", "chosen": "choose",
    "chose": "choose", "forgot": "forget", "forgotten": "forget", "held": "hold",
    "known": "know", "knew": "know", "sold": "sell", "told": "tell", "taught": "teach",
    "thought": "think", "written": "write", "wrote": "write", "broken": "break",
    "broke": "break", "began": "begin", "begun": "begin", "frozen": "freeze",
    "froze": "freeze", "hidden": "hide", "dealt": "deal", "meant": "mean", "felt": "feel",
    "slept": "sleep", "thrown": "throw", "threw": "throw", "worn": "wear", "wore": "wear",
    "drawn": "draw", "drew": "draw", "driven": "drive", "drove": "drive", "ridden": "ride",
    "shaken": "shake", "shook": "shake", "sworn": "swear", "woken": "wake", "won": "win",
    "understood": "understand", "withdrawn": "withdraw", "withdrew": "withdraw",
    "undone": "undo", "rebuilt": "rebuild", "overdrawn": "overdraw", "fed": "feed",
    "led": "lead", "met": "meet", "fled": "flee", "sought": "seek", "caught": "catch",
}


_PAST_FORMS: dict[str, list[str]] = {}
for _past, _verb in _IRREGULAR.items():
    _PAST_FORMS.setdefault(_verb, []).append(_past)


@functools.cache
def irregular_family(word: str) -> tuple[str, ...]:
    """The other forms of the irregular verb ``word`` is a form of ("took" -> ("take",
    "taken"), "take" -> ("taken", "took")); none for another word. A passage saying "the
    rollback took 14 minutes" speaks of how long it takes."""
    verb = _IRREGULAR.get(word, word)
    family = [verb, *_PAST_FORMS.get(verb, ())]
    return tuple(w for w in family if w != word) if len(family) > 1 else ()


def lemmas(word: str) -> list[str]:
    """``word`` and the forms it may be inflected from, most likely first: glosses are
    written as bare verbs and singular nouns ("approves" -> "approve", "leaked" -> "leak",
    "submitted" -> "submit", "carried" -> "carry", "requesting" -> "request", "kept" ->
    "keep"). The dictionary decides which form is a word."""
    out = [word, _singular(word)]
    if word in _IRREGULAR:
        out.append(_IRREGULAR[word])
    for ending in ("ed", "ing"):
        stem = word[: -len(ending)]
        if len(stem) > 2 and word.endswith(ending):
            out += [stem, stem + "e"]
            if ending == "ed" and stem.endswith("i"):
                out.append(stem[:-1] + "y")
            if len(stem) > 3 and stem[-1] == stem[-2]:
                out.append(stem[:-1])
    return list(dict.fromkeys(out))


# American and British spellings of one word: the dictionary glosses "catalog", "color",
# "organize"; a KB may write "catalogue", "colour", "organise" (and the other way round).
_SPELLINGS = (("og", "ogue"), ("or", "our"), ("er", "re"), ("ize", "ise"), ("yze", "yse"),
              ("ization", "isation"), ("ense", "ence"))


def spellings(word: str) -> list[str]:
    """``word`` and its other-side spelling ("catalog" / "catalogue"), if it has one."""
    out = [word]
    for us, uk in _SPELLINGS:
        for a, b in ((us, uk), (uk, us)):
            if len(word) > len(a) + 2 and word.endswith(a):
                out.append(word[: -len(a)] + b)
    return out


def english_forms(word: str) -> list[str]:
    """``word``, its other spelling and their plural and verb forms: the index is not
    stemmed, so a gloss "meal" is found in a KB that says "meals", "catalog" in one that
    says "catalogue", "expire" in one that says "your profile may have expired"."""
    if not word.isascii() or not word.isalpha() or len(word) < 3:
        return [word]
    spelled = spellings(word)
    forms: list[str] = []
    for w in spelled:
        forms += [w, w + "s", w + "es"]
        if w.endswith("y"):
            forms.append(w[:-1] + "ies")
    return forms + [f for w in spelled for f in _verb_forms(w)]


def _verb_forms(verb: str) -> list[str]:
    """The past and -ing forms of ``verb`` read as a regular verb ("expire" -> "expired",
    "expiring"; "carry" -> "carried"; "submit" -> "submitted", "submitting"), or its
    irregular past forms ("keep" -> "kept")."""
    if verb in _PAST_FORMS:
        return [*_PAST_FORMS[verb], verb + "ing"]
    if verb.endswith("e"):
        return [verb + "d", verb[:-1] + "ing"]
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return [verb[:-1] + "ied", verb + "ing"]
    out = [verb + "ed", verb + "ing"]
    if len(verb) > 3 and verb[-1] in "bdgmnprt" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
        out += [verb + verb[-1] + "ed", verb + verb[-1] + "ing"]
    return out
