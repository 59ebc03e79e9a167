"""Offline multi-hop chains: from the document a question names to the one that answers it.

A composed question ("When did the country of Izgoy's performer invade Manchuria?") names one
thing the knowledge base has a document about (its *anchor*: "Izgoy"). Each hop reads the
latest document of the chain for the name that the question's relation words point at
("performer" -> "... album by Alisa") and searches that name with the words still unexplained.
The chain is the list of documents the hops landed on; the terms the chain does not yet cover
say whether another hop is needed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agent.state import Passage, SearchRecord
from agent.text import content_terms, split_sentences, term_set

# Question words naming a relation -> words a document uses to state it. Wikidata-style
# relations that composed questions hop through; matched as word prefixes.
RELATION_CUES: dict[str, tuple[str, ...]] = {
    "birthplace": ("born", "birth", "native"), "born": ("born", "birth", "native"),
    "birth": ("born", "birth", "native"), "died": ("died", "death"),
    "death": ("died", "death"), "director": ("directed", "director"),
    "directed": ("directed", "director"), "performer": ("by", "performed", "singer", "band"),
    "performed": ("by", "performed"), "singer": ("by", "singer", "sung"),
    "sang": ("by", "sung", "singer"), "artist": ("by", "artist"),
    "band": ("by", "band"), "author": ("by", "written", "author", "wrote"),
    "wrote": ("by", "written", "wrote"), "writer": ("by", "written", "writer"),
    "spouse": ("married", "wife", "husband", "spouse"), "wife": ("married", "wife"),
    "husband": ("married", "husband"), "married": ("married", "wife", "husband"),
    "country": ("country", "in", "from"), "nation": ("country", "nation", "in"),
    "located": ("located", "in", "situated"), "location": ("located", "in"),
    "state": ("state", "in"), "city": ("city", "in"), "county": ("county", "in"),
    "region": ("region", "in"), "territory": ("territory", "in"),
    "capital": ("capital",), "founder": ("founded", "founder", "formed", "established"),
    "founded": ("founded", "formed", "established"), "formed": ("formed", "founded"),
    "member": ("member", "party"), "party": ("party", "member"),
    "educated": ("educated", "attended", "graduated", "studied"),
    "attend": ("attended", "educated", "graduated", "studied"),
    "university": ("university", "college", "attended", "graduated"),
    "employer": ("worked", "employed", "joined"), "worked": ("worked", "employed"),
    "producer": ("produced", "producer"), "produced": ("produced", "producer"),
    "developer": ("developed", "developer"), "developed": ("developed", "developer"),
    "manufacturer": ("manufactured", "made", "produced"),
    "publisher": ("published", "publisher"), "published": ("published", "publisher"),
    "released": ("released", "by", "from"), "record": ("records", "label"),
    "label": ("records", "label"), "father": ("father", "son", "daughter"),
    "mother": ("mother", "son", "daughter"), "son": ("son", "father"),
    "daughter": ("daughter", "father", "mother"), "owner": ("owned", "owner"),
    "owned": ("owned", "owner"), "creator": ("created", "creator"),
    "created": ("created", "creator"), "team": ("played", "team", "club"),
    "played": ("played", "plays"), "plays": ("played", "plays", "as"),
    "actor": ("as", "starring", "cast"), "network": ("aired", "network", "broadcast"),
    "league": ("league",), "river": ("river",), "mouth": ("mouth", "flows"),
    "headquarters": ("headquartered", "headquarters", "based"),
    "language": ("language", "speak"), "religion": ("religion",),
    "part": ("part", "in", "range"),
}

# Possessive runs, so a long gap of spaces is read once instead of split every way.
_CAPS = re.compile(r"\b([A-Z][\w'&.-]*+(?:\s++(?:(?:of|the|and|de|du|da|la|von|van|der|&)\s*+)?"
                   r"[A-Z0-9][\w'&.-]*+)*)")
_LEADING = frozenset([
    "the", "a", "an", "in", "on", "at", "by", "of", "for", "to", "from", "with", "as", "he",
    "she", "it", "they", "his", "her", "its", "their", "this", "that", "these", "those",
    "there", "when", "while", "after", "before", "during", "since", "although", "however",
    "unlike", "also", "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
])
# Words that state many relations: a name next to one is a weaker lead.
WEAK_CUES = frozenset(["in", "by", "from", "as", "of"])
MAX_CANDIDATES = 2
# The chain is done when its documents leave no more than this share of terms unexplained.
DONE_UNCOVERED = 0.2


def fold(text: str) -> str:
    """Accents off, case folded: "Akinoshū" matches "Akinoshu"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _stem(word: str) -> str:
    word = word.removesuffix("'s").removesuffix("’s")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") \
        else word


def _words(text: str) -> list[str]:
    return [_stem(w) for w in re.findall(r"[\w'’-]+", fold(text))]


def title_core(title: str) -> str:
    """The name a title stands for: "Hello Love (song)" -> "Hello Love".

    Only a last parenthesis with no ")" inside is dropped. Found by position rather than by
    a regex search, which rescans to the end from every "(" of a long run of them."""
    body = title.rstrip()
    if not body.endswith(")"):
        return title.strip()
    opening = body.find("(", body.rfind(")", 0, len(body) - 1) + 1, len(body) - 1)
    return title.strip() if opening < 0 else body[:opening].strip()


def _forms(name: str) -> list[list[str]]:
    """The word sequences a question may name ``name`` by: the name itself and, for
    "A of B", the possessive "B's A" ("India's national physical laboratory")."""
    core = _words(title_core(name))
    forms = [core]
    if "of" in core[1:-1]:
        at = core.index("of")
        forms.append(core[at + 1:] + core[:at])
    return forms


def _position(question: str, name: str) -> tuple[int, int] | None:
    """Where (word index, length) the question names ``name`` in one of its forms."""
    q = _words(question)
    for form in _forms(name):
        n = len(form)
        at = next((i for i in range(len(q) - n + 1) if n and q[i:i + n] == form), None)
        if at is not None:
            return at, n
    return None


def naming(title: str, question: str) -> int | None:
    """How the question names a title: 0 word for word, 1 as a possessive ("India's
    national physical laboratory" for "National Physical Laboratory of India"), 2 all but
    the last word of a title of three or more ("Tikhaya Sosna" for "Tikhaya Sosna River";
    "Nicholas I, lord of" for "Nicholas I, Lord of Mecklenburg": the last word is what a hop
    finds); None when it does not."""
    forms = [(min(kind, 1), form) for kind, form in enumerate(_forms(title))]
    core = forms[0][1]
    if not core or not any(len(w) > 2 for w in core):
        return None
    q = _words(question)
    head = core[:-1]
    if len(core) >= 3 and sum(1 for w in head if len(w) > 2 and w not in _LEADING) >= 2:
        forms.append((2, head))
    for kind, form in forms:
        n = len(form)
        if any(q[i:i + n] == form for i in range(len(q) - n + 1)):
            return kind
    return None


def is_anchor(title: str, question: str) -> bool:
    """Whether the question names the passage's title in full (see ``naming``)."""
    kind = naming(title, question)
    return kind is not None and kind < 2


def anchors(question: str, passages: list[Passage]) -> list[Passage]:
    """Passages about something the question names, one per document: named word for word
    first (longest name first), then as a possessive, then all but the last word."""
    seen: set[str] = set()
    named = [(kind, p) for p in passages
             if (kind := naming(p["title"], question)) is not None]
    out: list[Passage] = []
    for _, p in sorted(named, key=lambda kp: (kp[0], -len(_words(title_core(kp[1]["title"]))),
                                              kp[1]["round"], kp[1]["rank"])):
        if p["doc_id"] not in seen:
            seen.add(p["doc_id"])
            out.append(p)
    return out


def _clean(name: str) -> str:
    words = name.split()
    while words and words[0].lower().strip(".,") in _LEADING:
        words = words[1:]
    return " ".join(words).rstrip(".,;:'\"-")


def cue_words(terms: list[str]) -> set[str]:
    """Document words that state the relations the question's ``terms`` name."""
    cues: set[str] = set()
    for t in terms:
        cues.update(RELATION_CUES.get(t, ()))
        cues.update(RELATION_CUES.get(_stem(t), ()))
    return cues


def candidates(passage: Passage, question: str, exclude: list[str],
               pending: list[str]) -> list[str]:
    """Names in ``passage`` that the question's relation words point at, best first.

    A name scores by how close it stands to a cue word (``pending`` terms and the words that
    state their relations) in the passage; names already in the question or the chain
    (``exclude``) are not new leads.
    """
    q_words = set(_words(question))
    excluded = [set(_words(e)) for e in exclude if e]
    cues = cue_words(pending) | set(pending)
    scored: dict[str, float] = {}
    for s_index, sentence in enumerate(split_sentences(passage["text"])):
        low = fold(sentence)
        tokens = re.findall(r"[\w'’-]+", low)
        cue_at = [(i, 2.5 if w in WEAK_CUES else 0.0) for i, w in enumerate(tokens)
                  if w in cues or _stem(w) in cues]
        for m in _CAPS.finditer(sentence):
            at = len(re.findall(r"[\w'’-]+", fold(sentence[:m.start()])))
            gap = min((abs(at - i) + (0.5 if i > at else 0) + weak for i, weak in cue_at),
                      default=30)
            score = 10 - min(gap, 30) * 0.3 - s_index * 0.5
            name = _clean(m.group(1))
            # "Eastern Region of Uganda" also leads to "Uganda", a little behind.
            outer = name.rsplit(" of ", 1)[1] if " of " in name else ""
            for lead, value in ((name, score), (outer, score - 0.5)):
                words = set(_words(lead))
                if len(lead) <= 2 or not words or words <= q_words or \
                        any(len(words & e) * 2 >= min(len(words), len(e))
                            for e in excluded if e):
                    continue
                if all(w in _LEADING or w.isdigit() for w in words):
                    continue
                scored[lead] = max(scored.get(lead, -99.0), value)
    return sorted(scored, key=lambda n: -scored[n])


def uncovered(question: str, docs: list[Passage]) -> list[str]:
    """The question's topic terms that none of ``docs`` contain (relation words included:
    "born" in a document is what a hop followed, not the answer to "birthplace")."""
    seen: set[str] = set()
    for p in docs:
        seen |= term_set(p["title"] + " " + p["text"])
        seen |= {_stem(w) for w in _words(p["title"] + " " + p["text"])}
    return [t for t in content_terms(question)
            if len(t) > 1 and t not in seen and _stem(t) not in seen]


def is_relation(term: str) -> bool:
    return term in RELATION_CUES or _stem(term) in RELATION_CUES


def relation_terms(question: str, name: str, window: int = 4) -> list[str]:
    """The relation words standing next to ``name`` in the question: "Izgoy's performer"
    -> ["performer"]; [] when the question does not spell the name out."""
    q = _words(question)
    found = _position(question, name)
    if found is None:
        return []
    at, n = found
    near = set(q[max(at - window, 0):at] + q[at + n:at + n + window])
    return [t for t in content_terms(question)
            if is_relation(t) and (t in near or _stem(t) in near)]


@dataclass
class Chain:
    """Documents the hops landed on (anchor first) and the names they followed; ``named``:
    every document the question names; ``landings``: where every hop search landed."""

    docs: list[Passage]
    entities: list[str]
    named: list[Passage]
    landings: list[Passage]
    tried: set[str]  # names already searched (folded): a hop that led nowhere is not retried

    def ranked_doc_ids(self) -> list[str]:
        """The chain, then the other named documents, then the other hop landings."""
        return list(dict.fromkeys(p["doc_id"] for p in [*self.docs, *self.named,
                                                         *self.landings]))


def is_about(title: str, name: str) -> bool:
    """Whether a document titled ``title`` is about ``name``: the title is the name, give or
    take a word ("South Korea" for "Korea", not "Opportunity Farms, Missouri")."""
    key, words = set(_words(name)), _words(title_core(title))
    return bool(key) and key <= set(words) and len(words) <= len(key) + 1


def landing(record: SearchRecord, pool: list[Passage],
            skip: set[str] | frozenset[str] = frozenset()) -> Passage | None:
    """Where a hop search landed: its best hit about (or at least naming) its entity, among
    documents not in ``skip`` (those the chain already holds)."""
    entity = record["bridge_entity"] or ""
    hits = [p for cid in record["chunk_ids"][:5] for p in pool
            if p["chunk_id"] == cid and p["doc_id"] not in skip]
    key = set(_words(entity))
    about = [p for p in hits if key and is_about(p["title"], entity)]
    naming = [p for p in hits if key and key <= set(_words(p["text"]))]
    found = about or naming
    return found[0] if found else None


def build_chain(question: str, pool: list[Passage], searches: list[SearchRecord]) -> Chain:
    """The anchor (the longest title the question names) and, per round after the first,
    one landing: on a document about the followed name first, then the name the relation
    words pointed at first, then the landing that leaves the fewest terms unexplained."""
    named = anchors(question, pool)
    # A title named only in part is not a start: its last word is what a hop has to find.
    found = [p for p in named if is_anchor(p["title"], question)]
    chain = Chain(docs=found[:1], entities=[title_core(found[0]["title"])] if found else [],
                  named=named, landings=[],
                  tried={fold(s["bridge_entity"]) for s in searches if s["bridge_entity"]})
    if not found:
        return chain
    rounds = sorted({s["round"] for s in searches if s["bridge_entity"]})
    for r in rounds:
        hops = [s for s in searches if s["round"] == r and s["bridge_entity"]]
        order = list(dict.fromkeys(s["bridge_entity"] for s in hops))
        best: tuple[tuple[int, int, int], Passage, str] | None = None
        for rec in hops:
            land = landing(rec, pool, {d["doc_id"] for d in chain.docs})
            if land is None:
                continue
            chain.landings.append(land)
            entity = rec["bridge_entity"] or ""
            # A document about the name beats one that merely mentions it; then the name
            # the relation words pointed at first; then what explains more of the question.
            about = is_about(land["title"], entity)
            key = (0 if about else 1, order.index(entity),
                   len(uncovered(question, [*chain.docs, land])))
            if best is None or key < best[0]:
                best = (key, land, entity)
        if best is not None:
            chain.docs.append(best[1])
            chain.entities.append(best[2])
    return chain


def next_hops(question: str, chain: Chain) -> list[tuple[str, str]]:
    """``(entity, query)`` pairs for the next round, or [] when the chain explains enough."""
    if not chain.docs:
        return []
    terms = content_terms(question)
    pending = uncovered(question, chain.docs)
    if len(pending) <= DONE_UNCOVERED * len(terms):
        return []
    last = chain.docs[-1]
    # The relation next to the anchor's name is followed first and then spent.
    first = relation_terms(question, chain.entities[0])
    relation = (first if len(chain.docs) == 1 else []) \
        or [t for t in pending if is_relation(t) and t not in first] or pending
    exclude = [*chain.entities, *(title_core(d["title"]) for d in chain.docs)]
    names = [n for n in candidates(last, question, exclude, relation)
             if fold(n) not in chain.tried][:MAX_CANDIDATES]
    # The hop asks about the new name with what is still unexplained, topic words first:
    # the relation just followed is spent. The best name is also searched alone, which
    # finds the document about it when the other words pull elsewhere.
    rest = [t for t in pending if t not in relation]
    tail = sorted(rest, key=lambda t: (is_relation(t), -len(t)))[:5]
    hops = [(n, " ".join([n, *tail])) for n in names]
    if names and tail:
        hops.insert(1, (names[0], names[0]))
    return hops


_WHEN = re.compile(r"\b(when|what year|which year|what date)\b", re.I)
_HOW_MANY = re.compile(r"\bhow (many|much|long|old)\b", re.I)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_ASKED = re.compile(r"\b(?:what|which)\s+(\w+)", re.I)


def _roots(text: str) -> set[str]:
    """Word roots, so "invaded" meets "invade" and "founding" meets "founded"."""
    return {w[:5] for w in _words(text) if len(w) > 1}


def _type_bonus(question: str, sentence: str) -> float:
    """Whether the sentence holds the kind of thing asked for (a year, a number)."""
    if _WHEN.search(question):
        return 1.5 if _YEAR.search(sentence) else 0.0
    if _HOW_MANY.search(question):
        return 1.5 if re.search(r"\d", sentence) else 0.0
    return 0.0


def chain_lead(question: str, chain_ids: list[str],
               passages: list[Passage]) -> tuple[int, str] | None:
    """``(passage number, sentence)`` of a hop document that answers what the anchor leaves
    open: the question's other words and the kind of value asked for."""
    if len(chain_ids) < 2:
        return None
    numbered = list(enumerate(passages, start=1))
    anchor = _roots(" ".join(p["title"] + " " + p["text"] for _, p in numbered
                             if p["doc_id"] == chain_ids[0]))
    # A relation word ("city" of "Gisvi's city of birth") names a hop more often than the
    # answer: it weighs half of a topic word ("hotel"), unless it is the kind of thing
    # asked for ("What river flows through ...").
    asked = {r for m in _ASKED.finditer(question) for r in _roots(m.group(1))}
    weight = {r: 0.5 if is_relation(t) and r not in asked else 1.0
              for t in content_terms(question) if len(t) > 2 for r in _roots(t)
              if r not in anchor}
    best: tuple[float, int, str] | None = None
    for hop, doc_id in enumerate(chain_ids[1:], start=1):
        for n, p in numbered:
            if p["doc_id"] != doc_id:
                continue
            for sentence in split_sentences(p["text"]):
                hits = sum(weight.get(r, 0.0) for r in _roots(p["title"] + " " + sentence))
                score = hits + _type_bonus(question, sentence) + 0.1 * hop
                if hits and (best is None or score > best[0]):
                    best = (score, n, sentence)
    return (best[1], best[2]) if best else None
