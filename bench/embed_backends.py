"""Embedding backends side by side, in one run: chunks/s of torch, onnx and onnx-int8 on
the same chunk texts, their ratios to torch, how close their vectors are to torch's, and
what loading each costs a fresh process (wall time to the first query vector, peak RSS).

    python -m bench.embed_backends                  # 200 hotpotqa documents
    python -m bench.embed_backends --docs 300 --repeat 3 --home DIR

The ONNX files are exported into ``--home``/models on first use (not timed). With
``--repeat`` the backends alternate and the median per backend is reported, which evens
out a machine shared with other work. Target: onnx-int8 ÷ torch ≥ 2.0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import peak_rss_mb, print_table, write_results
from bench.corpus import DEFAULT_DATASET, batches, embedding_inputs, write_corpus
from bot.logging_setup import configure_logging

BACKENDS = ("torch", "onnx", "onnx-int8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.embed_backends",
                                     description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--home", type=Path,
                        default=Path(os.environ.get("RAGBOT_HOME", "~/.ragbot")).expanduser(),
                        help="where the ONNX export is kept (default: RAGBOT_HOME)")
    parser.add_argument("--child", choices=BACKENDS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_load_child(args.child, args.home)))
        return 0
    configure_logging("WARNING")
    from store.embedding import load_embedder

    embedders = {b: load_embedder(backend=b, home=args.home) for b in BACKENDS}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        origin = write_corpus(corpus, args.docs, DEFAULT_DATASET)
        texts = embedding_inputs(corpus)
    seconds: dict[str, list[float]] = {b: [] for b in BACKENDS}
    vectors: dict[str, np.ndarray] = {}
    for e in embedders.values():
        e.embed_documents(texts[:8])  # warm-up outside the timings
    for _ in range(max(1, args.repeat)):
        for b, e in embedders.items():
            started = time.perf_counter()
            vectors[b] = np.concatenate([e.embed_documents(batch) for batch in batches(texts)])
            seconds[b].append(time.perf_counter() - started)
    rate = {b: len(texts) / statistics.median(s) for b, s in seconds.items()}
    cos = {b: np.sum(vectors[b] * vectors["torch"], axis=1) for b in BACKENDS}
    loads = {b: _spawn(b, args.home) for b in BACKENDS}
    rows = [[b, rate[b], rate[b] / rate["torch"], float(cos[b].mean()), float(cos[b].min()),
             loads[b]["load_s"], loads[b]["rss_mb"], loads[b]["torch_imported"]]
            for b in BACKENDS]
    print_table(["backend", "chunks/s", "÷ torch", "mean cos", "min cos", "load s",
                 "RSS MB", "torch imported"], rows)
    result: dict[str, Any] = {
        "corpus": origin, "documents": args.docs, "chunks": len(texts), "repeat": args.repeat,
        "backends": {b: {"chunks_per_s": round(rate[b], 1),
                         "ratio_to_torch": round(rate[b] / rate["torch"], 3),
                         "seconds": [round(s, 2) for s in seconds[b]],
                         "cosine_to_torch_mean": round(float(cos[b].mean()), 5),
                         "cosine_to_torch_min": round(float(cos[b].min()), 5),
                         **loads[b]} for b in BACKENDS},
    }
    print(f"onnx-int8 ÷ torch: {rate['onnx-int8'] / rate['torch']:.2f} (target ≥ 2.0)")
    print(f"results: {write_results('embed_backends', result)}")
    return 0


def _spawn(backend: str, home: Path) -> dict[str, Any]:
    """Load ``backend`` in a fresh interpreter; its own report of wall time and RSS."""
    started = time.perf_counter()
    out = subprocess.run(  # noqa: S603 - our interpreter, our module
        [sys.executable, "-m", "bench.embed_backends", "--child", backend, "--home", str(home)],
        capture_output=True, text=True, check=True)
    report: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    report["process_s"] = round(time.perf_counter() - started, 2)
    return report


def _load_child(backend: str, home: Path) -> dict[str, Any]:
    started = time.perf_counter()
    from store.embedding import load_embedder

    load_embedder(backend=backend, home=home).embed_query("where is the night shuttle?")
    return {"load_s": round(time.perf_counter() - started, 2), "rss_mb": round(_peak_rss_mb()),
            "torch_imported": "torch" in sys.modules}


def _peak_rss_mb() -> float:
    """This process's own peak RSS: ru_maxrss survives exec, so a child spawned by a big
    parent would report the parent's peak; VmHWM belongs to the new address space."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return peak_rss_mb()


if __name__ == "__main__":
    raise SystemExit(main())
