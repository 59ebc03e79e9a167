"""The default model on ONNX Runtime, fp32 (``onnx``) or dynamically quantized to INT8
(``onnx-int8``), without torch at run time.

The ONNX files are exported once from the packaged weights into ``$RAGBOT_HOME/models``
with sentence-transformers' ONNX export and dynamic-quantization helpers (they need torch
and optimum; only the export does). At run time only ``onnxruntime`` and ``tokenizers``
are imported: importing sentence-transformers alone imports torch, which costs seconds
and hundreds of megabytes per process. Pooling and normalization are sentence-transformers'
for this model: the mean of the token vectors under the attention mask, then L2.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from store.embedder import DEFAULT_MODEL, Vectors, is_multilingual
from store.errors import StoreError

ONNX_BACKENDS = ("onnx", "onnx-int8")
_EXPORT_NAME = f"{DEFAULT_MODEL}-onnx"
# written last by the export: what the run time needs beyond the files (the maximum
# sequence length sentence-transformers truncates at, which tokenizer.json does not carry)
_MARKER = "ragbot_export.json"


def _quantization_target() -> str:
    """sentence-transformers' dynamic-quantization preset for this CPU."""
    if platform.machine().lower() in ("arm64", "aarch64"):
        return "arm64"
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        flags = ""
    return "avx512_vnni" if "avx512_vnni" in flags else "avx2"


def _model_file(export_dir: Path, backend: str) -> Path | None:
    if not (export_dir / _MARKER).is_file():
        return None
    onnx_dir = export_dir / "onnx"
    if backend == "onnx":
        path = onnx_dir / "model.onnx"
        return path if path.is_file() else None
    found = sorted(onnx_dir.glob("model_qint8_*.onnx"))
    return found[0] if found else None


def ensure_exported(home: Path, source: str, backend: str) -> tuple[Path, Path]:
    """The export directory and the ONNX file of ``backend``, exporting them from the
    model at ``source`` on first use. Concurrent processes export once (a file lock); the
    directory appears whole or not at all (built aside, then renamed)."""
    export_dir = home / "models" / _EXPORT_NAME
    found = _model_file(export_dir, backend)
    if found is not None:
        return export_dir, found
    export_dir.parent.mkdir(parents=True, exist_ok=True)
    with open(export_dir.parent / f".{_EXPORT_NAME}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _model_file(export_dir, backend) is None:
            _export(source, export_dir)
    found = _model_file(export_dir, backend)
    if found is None:
        raise StoreError(f"ONNX export into {export_dir} did not produce the {backend} model; "
                         f"delete {export_dir} and retry")
    return export_dir, found


def _export(source: str, export_dir: Path) -> None:
    try:
        from sentence_transformers import SentenceTransformer, export_dynamic_quantized_onnx_model
    except ImportError as exc:  # pragma: no cover - an install without the onnx extras
        raise StoreError(f"exporting the ONNX model needs optimum and onnxruntime ({exc}); "
                         "pip install 'optimum-onnx[onnxruntime]'") from exc
    tmp = Path(tempfile.mkdtemp(prefix=f".{_EXPORT_NAME}-", dir=export_dir.parent))
    try:
        model = SentenceTransformer(source, backend="onnx", device="cpu")
        model.save_pretrained(str(tmp))
        export_dynamic_quantized_onnx_model(model, _quantization_target(), str(tmp))
        (tmp / _MARKER).write_text(json.dumps({"max_seq_length": int(model.max_seq_length),
                                               "source": source}), encoding="utf-8")
        if export_dir.exists():
            shutil.rmtree(export_dir)
        os.replace(tmp, export_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class OnnxEmbedder:
    """Sentence embeddings from an exported ONNX model (same vectors as the torch path,
    within quantization error for INT8)."""

    def __init__(self, name: str, export_dir: Path, model_file: Path, *, backend: str,
                 batch_size: int = 64, threads: int | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.name = name
        self.backend = backend
        self.batch_size = batch_size
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self._session = ort.InferenceSession(str(model_file), options,
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        config = json.loads((export_dir / _MARKER).read_text("utf-8"))
        self._tokenizer = Tokenizer.from_file(str(export_dir / "tokenizer.json"))
        # tokenizer.json carries the base model's 128-token truncation and fixed padding;
        # sentence-transformers truncates at max_seq_length and pads to the longest.
        self._tokenizer.enable_truncation(int(config["max_seq_length"]))
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - a token, no secret
        self.dim = int(self._session.get_outputs()[0].shape[-1])
        self.multilingual = is_multilingual(name)

    def _batch(self, texts: Sequence[str]) -> Vectors:
        encoded = self._tokenizer.encode_batch(list(texts))
        ids = np.asarray([e.ids for e in encoded], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encoded], dtype=np.int64)
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.asarray([e.type_ids for e in encoded], dtype=np.int64)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out: Vectors = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return out

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # longest first, like sentence-transformers: batches of similar length pad less
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            out[idx] = self._batch([texts[i] for i in idx])
        return out

    def embed_query(self, text: str) -> Vectors:
        first: Vectors = self._batch([text])[0]
        return first
