"""Commands start light: a command imports only what it uses (``ragbot kb status`` no model
runtime and no graph, ``search`` on ONNX no torch, ``ask`` on ONNX no torch). Each runs in a
fresh interpreter, as a user's command does, and reports the modules it ended with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from store.types import SourceDocument

pytestmark = [pytest.mark.db, pytest.mark.model]

ROOT = Path(__file__).resolve().parents[2]
WATCHED = ("torch", "sentence_transformers", "transformers", "optimum", "onnxruntime",
           "langgraph", "langchain_core", "langsmith")
SCRIPT = f"""
import json, sys
from bot.cli import main
rc = main(sys.argv[1:])
print("MODULES " + json.dumps([m for m in {WATCHED!r} if m in sys.modules]))
sys.exit(rc)
"""


@pytest.fixture
def kb_env(pool, int8, onnx_home: Path, db_url: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    from store.ingest import ingest_documents

    docs = [SourceDocument(doc_key="ferry", source="harbour/ferry.md", title="Harbour ferry",
                           fmt="markdown", text="# Harbour ferry\n\nThe last ferry to the "
                           "island leaves pier 3 at 22:15; bikes ride free on weekends.\n")]
    ingest_documents(pool, "harbour", docs, embedder=int8)
    return {**os.environ, "DATABASE_URL": db_url, "RAGBOT_HOME": str(onnx_home),
            "RAGBOT_EMBED_BACKEND": "onnx-int8", "RAGBOT_LOG_LEVEL": "WARNING",
            "PYTHONPATH": str(ROOT)}


def _imports(env: dict[str, str], *argv: str) -> tuple[str, set[str]]:
    out = subprocess.run([sys.executable, "-c", SCRIPT, *argv], env=env, cwd=ROOT,  # noqa: S603 - our interpreter, our script
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    text, _, modules = out.stdout.rpartition("MODULES ")
    return text, set(json.loads(modules))


@pytest.mark.parametrize(("argv", "shown", "allowed"), [
    (["kb", "status", "harbour"], "onnx-int8 backend", set()),
    (["search", "when does the last ferry leave", "--kb", "harbour"], "pier 3", {"onnxruntime"}),
    (["ask", "When does the last ferry leave?", "--kb", "harbour"], "22:15",
     {"onnxruntime", "langgraph", "langchain_core", "langsmith"}),
], ids=["kb-status", "search", "ask"])
def test_a_command_imports_only_what_it_uses(kb_env: dict[str, str], argv: list[str],
                                             shown: str, allowed: set[str]) -> None:
    text, modules = _imports(kb_env, *argv)
    assert shown in text  # the command did its work
    assert modules <= allowed, f"`ragbot {argv[0]}` imported {sorted(modules - allowed)}"
