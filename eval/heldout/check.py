"""Self-check of the held-out set: python eval/heldout/check.py (exit 1 on an error).

Checks that both files parse, ids are unique, every gold document exists and is public for an
answerable question, every answer group is found in its gold documents under the scorer's own
matching rules (bot/evaluation/matching.py: NFKC, case-folding, whitespace ignored, Latin and
digit edges at word boundaries), reference answers pass their own groups, threads have
consecutive turns, and the labels agree with the documents' languages. Prints counts.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from bot.evaluation.matching import contains, group_found  # noqa: E402

KINDS = {"single", "multi_hop", "comparison", "follow_up", "unanswerable"}
KBS = {"eng", "it", "people", "business"}
REQUIRED = ("id", "question", "answers", "gold_doc_ids", "answerable", "kind", "tags", "lang",
            "thread", "turn", "reference_answer")
errors: list[str] = []
warnings: list[str] = []


def load(name: str) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate((HERE / name).read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{name}:{n}: not JSON ({exc.msg})")
            continue
        if isinstance(obj, dict):
            rows.append(obj)
        else:
            errors.append(f"{name}:{n}: not an object")
    return rows


def lang_of(text: str) -> str:
    cjk = len(re.findall(r"[\u4e00-\u9fff]", text))
    latin = len(re.findall(r"[A-Za-z]", text))
    return "zh" if cjk * 2 > latin else "en"


corpus, questions = load("corpus.jsonl"), load("questions.jsonl")
docs: dict[str, dict[str, Any]] = {}
for d in corpus:
    meta = d.get("metadata") or {}
    if d.get("id") in docs:
        errors.append(f"corpus: duplicate id {d.get('id')}")
    if not isinstance(d.get("text"), str) or not d["text"].strip():
        errors.append(f"corpus {d.get('id')}: empty text")
    if meta.get("kb") not in KBS or not meta.get("doc_type"):
        errors.append(f"corpus {d.get('id')}: metadata needs kb in {sorted(KBS)} and doc_type")
    docs[d["id"]] = d
restricted = {i for i, d in docs.items()
              if any(a != "public" for a in d["metadata"].get("acl", ["public"]))}
doc_lang = {i: lang_of(d["text"]) for i, d in docs.items()}

seen: set[str] = set()
turns: dict[str, list[int]] = {}
for q in questions:
    where = f"question {q.get('id')}"
    missing = [k for k in REQUIRED if k not in q]
    if missing:
        errors.append(f"{where}: missing {missing}")
        continue
    if q["id"] in seen:
        errors.append(f"{where}: duplicate id")
    seen.add(q["id"])
    if q["kind"] not in KINDS:
        errors.append(f"{where}: kind {q['kind']!r}")
    if q["lang"] != lang_of(q["question"]):
        errors.append(f"{where}: lang {q['lang']}, but the question reads as "
                      f"{lang_of(q['question'])}")
    turns.setdefault(q["thread"], []).append(q["turn"])
    gold, tags = q["gold_doc_ids"], q["tags"]
    for g in gold:
        if g not in docs:
            errors.append(f"{where}: gold id {g!r} not in corpus")
    if ("expect" in q) != ("vague" in tags) or (q.get("expect", "clarify") != "clarify"):
        errors.append(f"{where}: expect clarify goes with the tag vague, and only with it")
    if "expect" in q and q["turn"] != 1:
        errors.append(f"{where}: a question to clarify opens its thread")
    if not q["answerable"]:
        if q["kind"] != "unanswerable" or gold or q["answers"]:
            errors.append(f"{where}: unanswerable needs kind unanswerable, no gold, no answers")
        continue
    if q["kind"] == "unanswerable" or not gold or not q["answers"]:
        errors.append(f"{where}: answerable needs gold documents, answers and a kind")
        continue
    if set(gold) & restricted:
        errors.append(f"{where}: answerable by a public asker but a gold document is restricted")
    text = "\n".join(docs[g]["text"] for g in gold if g in docs)
    cross = "cross_lang" in tags
    for group in q["answers"]:
        if not group or not all(isinstance(a, str) and a.strip() for a in group):
            errors.append(f"{where}: empty answer group or alternative")
            continue
        if not group_found(text, group):
            errors.append(f"{where}: no alternative of {group} in its gold documents")
        elif not cross and not contains(text, group[0]):
            errors.append(f"{where}: first alternative {group[0]!r} not in its gold documents")
        if any(contains(q["question"], a) for a in group):
            warnings.append(f"{where}: an alternative of {group} is in the question itself")
    ref = q["reference_answer"][:600]
    if not all(group_found(ref, g) for g in q["answers"]):
        errors.append(f"{where}: reference_answer does not pass its own answer groups")
    langs = {doc_lang[g] for g in gold if g in doc_lang}
    if cross and langs == {q["lang"]}:
        errors.append(f"{where}: tagged cross_lang but every gold document is in {q['lang']}")
    if not cross and q["lang"] not in langs:
        errors.append(f"{where}: gold only in another language but not tagged cross_lang")

for thread, ts in turns.items():
    if ts != list(range(1, len(ts) + 1)):
        errors.append(f"thread {thread}: turns {ts} are not 1, 2, 3, ... in file order")

by_kb = Counter(d["metadata"]["kb"] for d in corpus)
by_lang = Counter(doc_lang.values())
print(f"corpus: {len(docs)} documents ({', '.join(f'{k} {v}' for k, v in sorted(by_kb.items()))}; "
      f"{', '.join(f'{k} {v}' for k, v in sorted(by_lang.items()))}); "
      f"restricted: {sorted(restricted)}")
print(f"questions: {len(questions)} in {len(turns)} threads; "
      f"answerable {sum(bool(q.get('answerable')) for q in questions)}")
for label, counter in (("kind", Counter(q.get("kind") for q in questions)),
                       ("lang", Counter(q.get("lang") for q in questions)),
                       ("tag", Counter(t for q in questions for t in q.get("tags", [])))):
    print(f"{label}: " + ", ".join(f"{k} {v}" for k, v in counter.most_common()))
used = Counter(g for q in questions for g in q.get("gold_doc_ids", []))
print("gold uses: " + ", ".join(f"{d} {used.get(d, 0)}" for d in sorted(docs)))
for w in warnings:
    print("warning:", w)
for e in errors:
    print("ERROR:", e)
print("OK" if not errors else f"{len(errors)} errors")
sys.exit(1 if errors else 0)
