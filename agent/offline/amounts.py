"""An amount in the question, and the sentence whose threshold covers it.

"报销八千块要几级审批？" / "Who signs off a CNY 12,000 claim?": the documents never say
8000 or 12000; they give bands ("5000 元以上：部门总监审批", "Claims above CNY 10,000 need
the CFO").
The sentence whose band holds the asked amount answers; its neighbours name other bands.
Chinese numerals are read by cn2an ("八千" = 8000).
"""

from __future__ import annotations

import re
import warnings

import cn2an

# A number starts where no digit or comma precedes it, so each run of digits is read once.
_NUM = r"(?<![\d,.])(\d[\d,]*+(?:\.\d++)?+)\s*+(万|千|k)?"
_CUR_AFTER = r"\s*(?:元|块|yuan|RMB|CNY|dollars?)"
_CUR_BEFORE = r"(?:CNY|RMB|USD|US\$|\$|¥|￥)\s*+"
_AMOUNT = re.compile(rf"{_CUR_BEFORE}{_NUM}|{_NUM}{_CUR_AFTER}", re.I)
_SCALE = {"万": 10_000.0, "千": 1_000.0, "k": 1_000.0}
# Words that make an amount a lower or an upper bound.
_ABOVE_AFTER = re.compile(r"^\s*(?:及)?(?:以上|起)")
_BELOW_AFTER = re.compile(r"^\s*(?:及)?(?:以下|以内)")
_ABOVE_BEFORE = re.compile(r"(?:超过|高于|大于|above|over|more than|exceeding|at least|from)\s*$",
                           re.I)
_BELOW_BEFORE = re.compile(r"(?:不超过|低于|少于|小于|under|below|less than|up to|at most)\s*$",
                           re.I)
# "2000 元至 20000 元", "CNY 2,000–20,000": a band between two amounts.
_BETWEEN = re.compile(r"^\s*(?:至|到|-|–|—|to)\s*", re.I)
Band = tuple[float, float]


def _value(m: re.Match[str]) -> float:
    digits, scale = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return float(digits.replace(",", "")) * _SCALE.get((scale or "").lower(), 1.0)


def _numbers(text: str) -> list[re.Match[str]]:
    return list(_AMOUNT.finditer(text))


# A Chinese numeral before a money word ("八千块", "两千五百元"); longer runs are no amount.
_ZH_NUMERAL = "零一二两三四五六七八九十百千万亿"
_ZH_AMOUNT = re.compile(rf"(?<![{_ZH_NUMERAL}])([{_ZH_NUMERAL}]{{1,12}})(?=\s*(?:块|元))")


def _arabic(m: re.Match[str]) -> str:
    try:
        # cn2an warns about a numeral it cannot read; that one stays as written.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return str(cn2an.cn2an(m.group(1), "smart"))
    except (ValueError, KeyError, IndexError):
        return m.group(1)


def asked_amounts(question: str) -> list[float]:
    """The money amounts ``question`` names (Chinese numerals read as numbers)."""
    return [_value(m) for m in _numbers(_ZH_AMOUNT.sub(_arabic, question))]


def bands(sentence: str) -> list[Band]:
    """The amount bands ``sentence`` states: "X 元以上" (X, ∞), "under CNY X" (0, X),
    "X 元至 Y 元" (X, Y)."""
    found = _numbers(sentence)
    out: list[Band] = []
    for i, m in enumerate(found):
        x = _value(m)
        after, before = sentence[m.end():], sentence[:m.start()]
        nxt = found[i + 1] if i + 1 < len(found) else None
        if nxt is not None and _BETWEEN.match(sentence[m.end():nxt.start()]):
            out.append((x, _value(nxt)))
        elif _ABOVE_AFTER.match(after) or _ABOVE_BEFORE.search(before[-12:]):
            out.append((x, float("inf")))
        elif _BELOW_AFTER.match(after) or _BELOW_BEFORE.search(before[-12:]):
            out.append((0.0, x))
    return out


def covering_floor(amounts: list[float], sentence: str) -> float | None:
    """The lower bound of the tightest band in ``sentence`` that holds one of the asked
    ``amounts`` ("20000 元以上" holds 30000 more tightly than "500 元以上"), or ``None``."""
    floors = [lo for a in amounts for lo, hi in bands(sentence) if lo <= a <= hi]
    return max(floors) if floors else None
