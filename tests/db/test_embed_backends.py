"""ONNX backends of the default model: same vectors as torch (within INT8 error), no torch
at run time, and a KB never mixes vectors of two backends without a reindex."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from store.embedder import Embedder
from store.embedding import load_embedder
from store.errors import BackendMismatchError
from store.types import SourceDocument

pytestmark = [pytest.mark.model]

SENTENCES = [
    "The night shuttle leaves the east gate of the campus at 23:40 on weekdays.",
    "Refunds for cancelled conference tickets take about ten working days.",
    "打印机卡纸时，先关闭电源，再从后盖取出纸张。",
    "A short one.",
    # longer than the tokenizer file's own 128-token limit: truncation must follow the
    # model's 256, as sentence-transformers does
    " ".join(f"Clause {i} of the warehouse safety rules covers forklift lane {i}."
             for i in range(40)),
]


def _cosines(a: Embedder, b: Embedder) -> np.ndarray:
    va, vb = a.embed_documents(SENTENCES), b.embed_documents(SENTENCES)
    return np.sum(va * vb, axis=1)


def test_onnx_matches_torch(embedder, onnx_home: Path) -> None:  # type: ignore[no-untyped-def]
    onnx = load_embedder(backend="onnx", home=onnx_home)
    assert onnx.dim == embedder.dim == 384
    assert _cosines(embedder, onnx).min() > 0.999
    query = onnx.embed_query(SENTENCES[0])
    assert float(np.dot(query, embedder.embed_query(SENTENCES[0]))) > 0.999
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


def test_onnx_int8_stays_close_to_torch(embedder, int8: Embedder) -> None:  # type: ignore[no-untyped-def]
    assert _cosines(embedder, int8).min() > 0.98


def test_the_onnx_path_never_imports_torch(int8: Embedder, onnx_home: Path) -> None:
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from store.embedding import load_embedder
        e = load_embedder(backend="onnx-int8", home=Path({str(onnx_home)!r}))
        e.embed_query("where is the night shuttle?")
        print("torch" in sys.modules, "sentence_transformers" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,  # noqa: S603 - our interpreter, our script
                         check=True, cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.split() == ["False", "False"]


def test_an_unknown_backend_names_the_choices() -> None:
    from store.errors import StoreError

    with pytest.raises(StoreError, match="torch, onnx, onnx-int8"):
        load_embedder(backend="tensorrt")


@pytest.mark.db
def test_a_backend_switch_without_reindex_is_refused(pool, embedder, int8: Embedder,  # type: ignore[no-untyped-def]
                                                     tmp_path: Path) -> None:
    from store.ingest import ingest_documents, ingest_paths
    from store.kb import kb_status
    from store.reindex import reindex
    from store.search import search

    (tmp_path / "shuttle.md").write_text("# Night shuttle\n\n" + SENTENCES[0] + "\n",
                                         encoding="utf-8")
    ingest_paths(pool, "backends", [tmp_path], embedder=embedder)
    doc = SourceDocument(doc_key="gate", source="campus/gate.md", title="East gate",
                         fmt="markdown", text="# East gate\n\nThe east gate closes at 1:00.\n")
    with pytest.raises(BackendMismatchError, match=r"ragbot reindex --kb backends.*"
                       r"RAGBOT_EMBED_BACKEND=onnx-int8"):
        ingest_documents(pool, "backends", [doc], embedder=int8)
    with pytest.raises(BackendMismatchError, match="RAGBOT_EMBED_BACKEND=torch"):
        search(pool, "backends", "night shuttle", embedder=int8)

    reindex(pool, "backends", embedder=int8)
    with pool.connection() as conn:
        assert kb_status(conn, "backends")["embed_backend"] == "onnx-int8"
    hits = search(pool, "backends", "when does the night shuttle leave", embedder=int8)
    assert "shuttle" in hits[0].doc_id
    with pytest.raises(BackendMismatchError):
        search(pool, "backends", "night shuttle", embedder=embedder)
