"""Build corpus.jsonl from docs/*.md: python3 build_corpus.py (standard library only).

Each document is a Markdown file with a small front matter (title, doc_type, kb, updated,
owner, optionally acl as a one-line list). id = file stem; text = the body without the front
matter; metadata = doc_type, kb, updated, owner, acl (only where restricted), source, format.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KEYS = ("title", "doc_type", "kb", "updated", "owner", "acl")


def parse(path: Path) -> dict[str, Any]:
    """One corpus line from one Markdown file with front matter."""
    raw = path.read_text(encoding="utf-8")
    if not raw.startswith("---\n"):
        raise SystemExit(f"{path.name}: no front matter; start the file with a '---' block")
    head, body = raw[4:].split("\n---\n", 1)
    meta: dict[str, object] = {}
    for line in head.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key not in KEYS:
            raise SystemExit(f"{path.name}: unknown front matter key {key!r}")
        if key == "acl":
            meta[key] = [p.strip() for p in value.strip("[]").split(",") if p.strip()]
        else:
            meta[key] = value.strip('"')
    for key in ("title", "doc_type", "kb", "updated", "owner"):
        if key not in meta:
            raise SystemExit(f"{path.name}: front matter lacks {key!r}")
    metadata = {k: meta[k] for k in ("doc_type", "kb", "updated", "owner")}
    if "acl" in meta:
        metadata["acl"] = meta["acl"]
    metadata["source"] = f"eval/heldout/docs/{path.name}"
    metadata["format"] = "markdown"
    return {"id": path.stem, "title": meta["title"], "text": body.strip() + "\n",
            "metadata": metadata}


def main() -> None:
    rows = [parse(p) for p in sorted((HERE / "docs").glob("*.md"))]
    with (HERE / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"corpus.jsonl: {len(rows)} documents")


if __name__ == "__main__":
    main()
