"""Questions of an evaluation set (``questions.jsonl``), in replay order."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from store.errors import StoreError


class DatasetError(StoreError):
    """An evaluation set is missing or malformed; the message names the file, line and fix."""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold_doc_ids: tuple[str, ...] = ()
    answers: tuple[tuple[str, ...], ...] = ()
    answerable: bool = True
    kind: str = "single"
    thread: str | None = None
    turn: int | None = None
    gold_rewrite: str | None = None
    sub_questions: tuple[str, ...] = ()
    reference_answer: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_KNOWN = {"id", "question", "gold_doc_ids", "answers", "answerable", "kind", "thread", "turn",
          "gold_rewrite", "sub_questions", "reference_answer"}


def parse_question(obj: Any, item: str) -> Question:
    """One question from its JSON object; ``item`` names it in errors (file:line)."""
    if not isinstance(obj, dict):
        raise DatasetError(f"{item}: expected a JSON object")
    qid, text = obj.get("id"), obj.get("question")
    if not isinstance(qid, str) or not qid or not isinstance(text, str) or not text.strip():
        raise DatasetError(f"{item}: every question needs a string \"id\" and a non-empty "
                           "\"question\"")
    answers = obj.get("answers") or []
    subs = obj.get("sub_questions") or []
    turn = obj.get("turn")
    return Question(
        id=qid,
        question=text,
        gold_doc_ids=tuple(str(d) for d in obj.get("gold_doc_ids") or ()),
        answers=tuple(tuple(str(a) for a in group) for group in answers
                      if isinstance(group, list)),
        answerable=bool(obj.get("answerable", True)),
        kind=str(obj.get("kind") or "single"),
        thread=str(obj["thread"]) if obj.get("thread") is not None else None,
        turn=int(turn) if isinstance(turn, int | float) else None,
        gold_rewrite=obj.get("gold_rewrite") if isinstance(obj.get("gold_rewrite"), str)
        else None,
        sub_questions=tuple(str(s) if not isinstance(s, dict) else str(s.get("question", ""))
                            for s in subs),
        reference_answer=obj.get("reference_answer")
        if isinstance(obj.get("reference_answer"), str) else None,
        extra={k: v for k, v in obj.items() if k not in _KNOWN},
    )


def load_questions(path: Path) -> list[Question]:
    """Every question of ``path`` (one JSON object per line; blank lines skipped)."""
    if not path.is_file():
        raise DatasetError(f"{path} not found; an evaluation folder holds corpus.jsonl and "
                           "questions.jsonl (see ../shared/datasets/README.md)")
    out: list[Question] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            item = f"{path}:{number}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{item}: not valid JSON ({exc.msg}); fix or remove the "
                                   "line") from exc
            question = parse_question(obj, item)
            if question.id in seen:
                raise DatasetError(f"{item}: duplicate question id {question.id!r}")
            seen.add(question.id)
            out.append(question)
    return out


def replay_order(questions: Sequence[Question]) -> list[Question]:
    """Questions in the order to ask them: each thread's turns together and in turn order,
    threads (and thread-less questions) in order of first appearance."""
    groups: dict[str, list[Question]] = {}
    for q in questions:
        groups.setdefault(q.thread if q.thread is not None else f"\0{q.id}", []).append(q)
    ordered: list[Question] = []
    for group in groups.values():
        ordered.extend(sorted(group, key=lambda q: (q.turn is None, q.turn or 0)))
    return ordered
