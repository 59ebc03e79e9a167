"""How real embeddings crowd together, and the clustered synthetic vectors fitted to them.

    python -m bench.vector_profile                     # 800 chunks of each shared set
    python -m bench.vector_profile --per-set 400 --backend onnx-int8 --home DIR
    python -m bench.vector_profile --vectors-file real.npy   # embed once, refit later

Embeds chunks of the shared datasets (cmrc2018, hotpotqa, musique, mtrag: the same reader and
chunker as ingest), holds some out as queries, and measures the neighbour-distance profile:
the cosine of each query's 1st, 5th, 10th and 50th nearest chunk, and of random pairs. Then it
searches the parameters of ``bench.synthetic``'s clustered vectors (document, topic and
domain centres over chunk noise) for the profile closest to the real one at the same size,
and prints both. Uniform random vectors are shown too: their neighbours are nearly
equidistant, which is why HNSW recall measured on them says nothing about real data.
"""

from __future__ import annotations

import argparse
import itertools
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.common import print_table, write_results
from bench.corpus import DATASETS, batches, embedding_inputs, write_corpus
from bench.synthetic import CLUSTERED, ClusterShape, clustered_vectors
from bot.logging_setup import configure_logging

SETS = ("cmrc2018", "hotpotqa", "musique", "mtrag")
RANKS = (1, 5, 10, 50)
QUERIES = 200


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vector_profile",
                                     description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--per-set", type=int, default=800, help="chunks embedded per set")
    parser.add_argument("--backend", default="onnx-int8")
    parser.add_argument("--vectors-file", type=Path, default=None,
                        help="keep the real vectors here (.npy); read them when it exists")
    parser.add_argument("--home", type=Path,
                        default=Path(os.environ.get("RAGBOT_HOME", "~/.ragbot")).expanduser())
    args = parser.parse_args(argv)
    configure_logging("WARNING")
    if args.vectors_file is not None and args.vectors_file.exists():
        real = np.load(args.vectors_file)
    else:
        real = _real_vectors(args.per_set, args.backend, args.home)
        if args.vectors_file is not None:
            np.save(args.vectors_file, real)
    rng = np.random.default_rng(11)
    order = rng.permutation(len(real))
    queries, base = real[order[:QUERIES]], real[order[QUERIES:]]
    target = profile(queries, base, rng)
    fitted, fitted_profile = fit(target, len(base), real.shape[1])
    uniform = _uniform_profile(len(base), real.shape[1])
    rows = [["real chunks", *target.values()],
            [f"clustered (fitted) {_shape_text(fitted)}", *fitted_profile.values()],
            [f"clustered (in use) {_shape_text(CLUSTERED)}",
             *_synthetic_profile(CLUSTERED, len(base), real.shape[1]).values()],
            ["uniform random", *uniform.values()]]
    print_table(["vectors", *target.keys()], rows)
    result = {"chunks": len(real), "base": len(base), "queries": QUERIES,
              "backend": args.backend, "real": target,
              "fitted": {"levels": fitted.levels, "profile": fitted_profile},
              "uniform": uniform}
    print(f"results: {write_results('vector_profile', result)}")
    return 0


def profile(queries: npt.NDArray[np.float32], base: npt.NDArray[np.float32],
            rng: np.random.Generator) -> dict[str, float]:
    """Median cosine of each query's k-th nearest base vector, and of random pairs."""
    sims = np.sort(queries @ base.T, axis=1)[:, ::-1]
    out = {f"nn{k}": round(float(np.median(sims[:, k - 1])), 3) for k in RANKS}
    a = rng.integers(0, len(base), 5000)
    b = rng.integers(0, len(base), 5000)
    keep = a != b
    out["random pair"] = round(float(np.median(np.sum(base[a[keep]] * base[b[keep]], axis=1))), 3)
    return out


def fit(target: dict[str, float], count: int, dim: int) -> tuple[ClusterShape, dict[str, float]]:
    """The cluster shape whose profile at ``count`` vectors is closest to ``target``."""
    best: tuple[float, ClusterShape, dict[str, float]] | None = None
    weights = (0.5, 0.75, 1.0)
    for w1, w2, w3, s1, s2, s3 in itertools.product(weights, weights, weights, (2, 4, 5),
                                                    (10, 20, 40), (100, 200, 500)):
        shape = ClusterShape(levels=((w1, s1), (w2, s2), (w3, s3)))
        got = _synthetic_profile(shape, count, dim)
        error = sum((got[k] - target[k]) ** 2 for k in target)
        if best is None or error < best[0]:
            best = (error, shape, got)
    assert best is not None
    return best[1], best[2]


def _synthetic_profile(shape: ClusterShape, count: int, dim: int) -> dict[str, float]:
    rng = np.random.default_rng(5)
    vectors = clustered_vectors(rng, count + QUERIES, dim, shape)
    pick = rng.permutation(len(vectors))
    return profile(vectors[pick[:QUERIES]], vectors[pick[QUERIES:]], rng)


def _uniform_profile(count: int, dim: int) -> dict[str, float]:
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((count + QUERIES, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return profile(vectors[:QUERIES], vectors[QUERIES:], rng)


def _shape_text(shape: ClusterShape) -> str:
    return "(" + ", ".join(f"{w} x {n}" for w, n in shape.levels) + ")"


def _real_vectors(per_set: int, backend: str, home: Path) -> npt.NDArray[np.float32]:
    from store.embedding import load_embedder

    embedder = load_embedder(backend=backend, home=home)
    texts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in SETS:
            corpus = Path(tmp) / f"{name}.jsonl"
            write_corpus(corpus, per_set, DATASETS / name / "corpus.jsonl")
            texts.extend(embedding_inputs(corpus)[:per_set])
    vectors: Any = np.concatenate([embedder.embed_documents(b) for b in batches(texts)])
    return np.asarray(vectors, dtype=np.float32)


if __name__ == "__main__":
    raise SystemExit(main())
