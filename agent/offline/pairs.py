"""The two things a comparison names ("北京和上海的人口哪个多？" -> 北京, 上海; "Which is older,
the pier or the lighthouse?" -> the pier, the lighthouse), read by the planner, the
comparison answers and the two-names verdict alike."""

from __future__ import annotations

import re

from agent.text import content_terms

_ZH_LINKS = r"(?:和|与|跟|同|以及|及|对比|相比|vs\.?|VS)"
_ZH_ENDS = r"(?:的|之间|在|有|相比|哪|谁|比较|对比|区别|差异|不同|[？?，,]|$)"
_ZH_PAIR = re.compile(rf"(.{{1,30}}?){_ZH_LINKS}(.{{1,30}}?){_ZH_ENDS}")
# The link and what follows it, alone: where the first one that can close a pair stands.
_ZH_LINK = re.compile(rf"{_ZH_LINKS}.{{1,30}}?{_ZH_ENDS}")
# Matched from the start only (a match anywhere is also one from the start on one line), and
# the first part ends on a non-space so each run of spaces is read once: no backtracking.
_EN_PAIR = re.compile(r"(?:between|compare|comparing)?\s*+(.*?\S)\s++(?:and|vs\.?|versus|or)\s+"
                      r"(.+?)(?:[?,.]|$)", re.I)
_EN_LEAD = re.compile(r"^(what is the difference between|what's the difference between|"
                      r"compare|which (?:is|was|one is|came|has|had|were|are)\s+\w+,?|"
                      r"who (?:is|was)\s+\w+,?|are|were|is|was|did|do|does)\s+", re.I)

_FILLER = r"(?:of|the|and|de|for|in|on|la|von|van|&)"
# A name: a quoted title, or capitalised words joined by spaces and fillers ("Bank of
# America"). Possessive, so no run of letters or spaces is ever split two ways.
_NAME = (rf"(?:\"[^\"]{{2,60}}\"|[A-Z][\w'.&-]*+(?:\s++(?:{_FILLER}\s*+)?"
         rf"[A-Z0-9][\w'.&-]*+)*)")
_NAMED_PAIR = re.compile(rf"({_NAME})(?:\s*+,)?\s++(?:and|or|vs\.?|versus)\s++({_NAME})")
# Where a name can start: each whole run of capitalised words, read once.
_NAME_RUN = re.compile(rf"[A-Z][\w'.&-]*+(?:\s++(?:{_FILLER}\s*+)?[A-Z0-9][\w'.&-]*+)*+")
_QUESTION_WORD = re.compile(r"^(Are|Is|Was|Were|Do|Does|Did|Who|Which|What|When|Where|How|"
                            r"Between|Compare|Both)\b\s*", re.I)


def _zh_pair(text: str) -> re.Match[str] | None:
    """``_ZH_PAIR.search(text)``, without trying each of 30 x 30 splits at every position.

    A pair can only start within 30 characters before a link that closes one, so the search
    begins there; before the first such link, no start can succeed."""
    link = _ZH_LINK.search(text, 1)
    return None if link is None else _ZH_PAIR.search(text, max(0, link.start() - 30))


def _named_pair(text: str) -> re.Match[str] | None:
    """The leftmost named pair, as ``_NAMED_PAIR.search`` finds it, in linear time.

    A search retries from every capital, rereading the same run of names each time. Tried
    from the start of each run (and each quote) instead: a start inside a run sees the same
    words to the same end, so it fails wherever the run's start fails."""
    starts = {m.start() for m in _NAME_RUN.finditer(text)}
    starts.update(i for i, ch in enumerate(text) if ch == '"')
    for at in sorted(starts):
        match = _NAMED_PAIR.match(text, at)
        if match is not None:
            return match
    return None


def comparison_parts(question: str) -> list[str]:
    """The two things compared, or [] when they cannot be told apart."""
    match = _zh_pair(question) if re.search(r"[\u4e00-\u9fff]", question) else None
    if match is None:
        # Named things first: "Are Christopher Nolan and Sathish Kalathil both …".
        named = _named_pair(_QUESTION_WORD.sub("", question.strip()))
        if named is not None:
            return [g.strip('"') for g in named.groups()]
    if match is None:
        match = _EN_PAIR.match(_EN_LEAD.sub("", question.strip()))
    if match is None:
        return []
    parts = [p.strip(" ,，：:") for p in match.groups()]
    return [p for p in parts if content_terms(p)] if all(content_terms(p) for p in parts) else []
