"""English word forms for dictionary lookup and for the keyword index.

CC-CEDICT glosses bare verbs and singular nouns in American spelling; questions and
documents inflect words and may spell them the British way. These functions give the forms
a word may be looked up as (``lemmas``) or found as (``english_forms``); the dictionary or
the index decides which form is a word.
"""

from __future__ import annotations


def _singular(word: str) -> str:
    """``word`` without a plural ending ("databases" -> "database"), for dictionary lookup."""
    for plural, single in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if len(word) > len(plural) + 2 and word.endswith(plural) and not word.endswith("ss"):
            return word[: -len(plural)] + single
    return word


def lemmas(word: str) -> list[str]:
    """``word`` and the forms it may be inflected from, most likely first: glosses are
    written as bare verbs and singular nouns ("approves" -> "approve", "leaked" -> "leak",
    "submitted" -> "submit", "carried" -> "carry", "requesting" -> "request"). The
    dictionary decides which form is a word."""
    out = [word, _singular(word)]
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
    """``word``, its other spelling and their plural forms: the index is not stemmed, so a
    gloss "meal" is found in a KB that says "meals", "catalog" in one that says
    "catalogue"."""
    if not word.isascii() or not word.isalpha() or len(word) < 3:
        return [word]
    forms: list[str] = []
    for w in spellings(word):
        forms += [w, w + "s", w + "es"]
        if w.endswith("y"):
            forms.append(w[:-1] + "ies")
    return forms
