"""Structure-aware chunking (pure functions, no I/O).

A document is parsed into blocks: headings (which set the heading path), fenced code blocks,
pipe tables and prose paragraphs. Chunks never cross a heading, so each chunk's heading path
is exact. Within a section, prose is packed sentence by sentence up to ``max_tokens`` with
about ``overlap`` tokens of trailing sentences repeated at the start of the next prose chunk;
tables and code blocks are kept whole when they fit, and split by rows (table header and
separator repeated) or by lines (fences repeated) when they do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from store.tokenize import count_tokens
from store.types import ChunkDraft

MAX_TOKENS = 512
OVERLAP_TOKENS = 100
_CHARS_PER_TOKEN = 16

# The title's closing "#"s and spaces are stripped in code (``_heading``): a lazy title
# before "[ \t]*#*[ \t]*$" rescans the rest of a line of spaces from each position.
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+)$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_TABLE_ROW = re.compile(r"^\s*\|")
_TABLE_SEP = re.compile(r"^\s*+\|?\s*+:?-{2,}+:?\s*+(?:\|\s*+:?-{2,}+:?\s*+)*+\|?\s*+$")
# A sentence ends at Chinese 。！？ (plus closing quotes), at . ! ? followed by whitespace,
# or at a line break (list items, verse, addresses carry no punctuation).
# A run of dots is stepped over whole ("(?>[.…]+|.)"): the end test gives the same answer
# anywhere inside a run, and trying it at each dot made a line of dots quadratic. A dot run
# ends a sentence only when spaces follow it, and a "!" or "?" ends one where it stands: a
# mixed run ".!." no longer reads on to its end, which each sentence in it did once more.
_SENTENCE = re.compile(
    r".(?>[.…]+|.)*?(?:[。！？!?]++[”’」』\"')）]*+[ \t]*+|[.…]++[”’\"')\]]*+(?:[ \t]+|(?=\n)|$)"
    r"|\n+|$)",
    re.S,
)
_CLAUSE = re.compile(r".+?(?:[，；、,;:：]+\s*|$)", re.S)


@dataclass(frozen=True)
class Block:
    kind: str  # "prose" | "table" | "code"
    text: str
    heading_path: tuple[str, ...]


def _take_fence(lines: list[str], i: int, marker: str) -> tuple[str, int]:
    """The fenced block starting at line ``i`` and the index after it."""
    j = i + 1
    while j < len(lines) and not lines[j].lstrip().startswith(marker):
        j += 1
    body = "\n".join(lines[i:j + 1]).rstrip()
    if j >= len(lines):  # unterminated fence: close it so each piece renders
        body += "\n" + marker
    return body, j + 1


def _take_table(lines: list[str], i: int) -> tuple[str, int]:
    j = i
    while j < len(lines) and _TABLE_ROW.match(lines[j]):
        j += 1
    return "\n".join(x.strip() for x in lines[i:j]), j


def _heading(line: str) -> tuple[int, str] | None:
    """A Markdown heading's level and title, without the closing "#"s and spaces."""
    match = _HEADING.match(line)
    if match is None:
        return None
    title = match.group(2)
    bare = title.rstrip(" \t").rstrip("#").rstrip(" \t")
    return len(match.group(1)), title[:max(1, len(bare))]


def parse_blocks(text: str, fmt: str = "markdown") -> list[Block]:
    """Split ``text`` into headed blocks. ``fmt`` other than markdown is plain paragraphs."""
    structured = fmt in ("markdown", "html", "docx")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []
    para: list[str] = []

    def add(kind: str, body: str) -> None:
        if body.strip():
            blocks.append(Block(kind, body, tuple(title for _, title in headings)))

    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _heading(line) if structured else None
        fence = _FENCE.match(line) if structured else None
        is_table = structured and _TABLE_ROW.match(line)
        if heading or fence or is_table or not line.strip():
            add("prose", "\n".join(para).strip())
            para.clear()
        if heading:
            level = heading[0]
            headings = [h for h in headings if h[0] < level] + [heading]
            i += 1
        elif fence:
            body, i = _take_fence(lines, i, fence.group(1))
            add("code", body)
        elif is_table:
            body, i = _take_table(lines, i)
            add("table", body)
        else:
            if line.strip():
                para.append(line)
            i += 1
    add("prose", "\n".join(para).strip())
    return blocks


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` with their trailing whitespace, so ``"".join`` restores it."""
    return [m.group(0) for m in _SENTENCE.finditer(text) if m.group(0)]


def _weight(text: str) -> int:
    """Size of a piece for packing: its tokens, but at least one per 16 characters, so a
    run of huge "words" (minified code, base64) still ends up in bounded chunks."""
    return max(count_tokens(text), len(text) // _CHARS_PER_TOKEN)


def _hard_split(text: str, max_tokens: int) -> list[str]:
    """Split a run with no usable boundary into pieces of at most ``max_tokens``."""
    span = max_tokens * _CHARS_PER_TOKEN
    pieces: list[str] = []
    rest = text
    while rest:
        window = rest[:span]
        n = count_tokens(window)
        cut = len(window)
        if n > max_tokens:
            # Proportional guess, shrunk until it fits: a few tokenizer calls per piece.
            cut = max(1, len(window) * max_tokens // n)
            while cut > 1 and count_tokens(window[:cut]) > max_tokens:
                cut = max(1, cut * 19 // 20)
            space = window.rfind(" ", 0, cut)
            if space > cut // 2:  # prefer not to cut a Latin word in half
                cut = space + 1
        pieces.append(rest[:cut])
        rest = rest[cut:]
    return pieces


# A list item's number ("6. ", "2) ") reads as a sentence of its own to the splitter: it
# belongs to the item after it, or a chunk could end on a bare "6.".
_MARKER_ONLY = re.compile(r"^\s*\d{1,3}[.)][ \t]*$")


def _sentences(text: str) -> list[str]:
    """``split_sentences`` with a list item's number kept on its item."""
    out: list[str] = []
    for sentence in split_sentences(text):
        if out and _MARKER_ONLY.match(out[-1]):
            out[-1] += sentence
        else:
            out.append(sentence)
    return out


def _sentence_units(text: str, max_tokens: int) -> Iterator[tuple[str, int]]:
    for sentence in _sentences(text):
        n = _weight(sentence)
        if n <= max_tokens:
            yield sentence, n
            continue
        # Too long for one chunk: cut at clause marks, then anywhere as a last resort.
        for clause in _CLAUSE.findall(sentence):
            for piece in _hard_split(clause, max_tokens):
                yield piece, _weight(piece)


def _split_table(text: str, max_tokens: int) -> list[str]:
    rows = text.split("\n")
    header = rows[:2] if len(rows) > 1 and _TABLE_SEP.match(rows[1]) else rows[:1]
    body = rows[len(header):]
    head_tokens = count_tokens("\n".join(header))
    pieces: list[str] = []
    current: list[str] = []
    used = head_tokens
    for row in body:
        n = _weight(row)
        if current and used + n > max_tokens:
            pieces.append("\n".join(header + current))
            current, used = [], head_tokens
        current.append(row)
        used += n
    if current or not pieces:
        pieces.append("\n".join(header + current))
    return pieces


def _split_code(text: str, max_tokens: int) -> list[str]:
    lines = text.split("\n")
    opening, closing = lines[0], lines[-1]
    inner = lines[1:-1]
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for line in inner:
        n = _weight(line)
        if current and used + n > max_tokens:
            pieces.append("\n".join([opening, *current, closing]))
            current, used = [], 0
        current.append(line)
        used += n
    if current or not pieces:
        pieces.append("\n".join([opening, *current, closing]))
    return pieces


@dataclass
class _Unit:
    text: str
    tokens: int
    para: int  # units of the same paragraph are joined without a blank line
    prose: bool


def _render(units: list[_Unit]) -> str:
    out: list[str] = []
    previous = None
    for unit in units:
        if previous is not None and unit.para != previous:
            out.append("\n\n")
        out.append(unit.text)
        previous = unit.para
    return "".join(out).strip()


def _section_units(blocks: list[Block], max_tokens: int) -> list[_Unit]:
    units: list[_Unit] = []
    for index, block in enumerate(blocks):
        if block.kind == "prose":
            units.extend(_Unit(s, n, index, True)
                         for s, n in _sentence_units(block.text, max_tokens))
            continue
        n = _weight(block.text)
        if n <= max_tokens:
            units.append(_Unit(block.text, n, index, False))
            continue
        split = _split_table if block.kind == "table" else _split_code
        # Each piece is its own paragraph so pieces never merge into one unit.
        units.extend(_Unit(piece, _weight(piece), index * 10_000 + k, False)
                     for k, piece in enumerate(split(block.text, max_tokens)))
    return units


def _pack(units: list[_Unit], max_tokens: int, overlap: int) -> list[list[_Unit]]:
    chunks: list[list[_Unit]] = []
    current: list[_Unit] = []
    used = 0
    fresh = 0  # units in ``current`` that are not overlap from the previous chunk
    for unit in units:
        if fresh and used + unit.tokens > max_tokens:
            chunks.append(current)
            carry: list[_Unit] = []
            if unit.prose and current[-1].prose:
                budget = overlap
                for prev in reversed(current):
                    if not prev.prose or prev.tokens > budget:
                        break
                    carry.insert(0, prev)
                    budget -= prev.tokens
                # Keep the overlap only if the next unit still fits beside it.
                while carry and sum(u.tokens for u in carry) + unit.tokens > max_tokens:
                    carry.pop(0)
            current, used, fresh = carry, sum(u.tokens for u in carry), 0
        current.append(unit)
        used += unit.tokens
        fresh += 1
    if fresh:
        chunks.append(current)
    return chunks


def chunk_text(text: str, fmt: str = "markdown", *, max_tokens: int = MAX_TOKENS,
               overlap: int = OVERLAP_TOKENS) -> list[ChunkDraft]:
    """Chunks of ``text`` in reading order, each with its heading path and token count."""
    blocks = parse_blocks(text, fmt)
    sections: list[list[Block]] = []
    for block in blocks:
        if sections and sections[-1][0].heading_path == block.heading_path:
            sections[-1].append(block)
        else:
            sections.append([block])
    drafts: list[ChunkDraft] = []
    for section in sections:
        units = _section_units(section, max_tokens)
        for group in _pack(units, max_tokens, overlap):
            body = _render(group)
            if body:
                drafts.append(ChunkDraft(len(drafts), section[0].heading_path, body,
                                         count_tokens(body)))
    return drafts


def embedding_input(title: str, heading_path: tuple[str, ...] | list[str], text: str) -> str:
    """What is embedded and keyword-indexed for a chunk: title, heading path, then text."""
    path = list(heading_path)
    if path and path[0].strip() == title.strip():  # a document's H1 is usually its title
        path = path[1:]
    head = " > ".join(h for h in path if h)
    return "\n".join(part for part in (title, head, text) if part)
