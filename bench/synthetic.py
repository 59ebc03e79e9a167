"""Synthetic chunks for the search benchmark, bulk-loaded with COPY into a fresh KB.

Vectors are uniform random unit vectors, or clustered ones (``--vectors clustered``: a
direction all share, one centre per topic of consecutive chunks, chunk noise) whose
neighbour-distance profile was fitted to real embeddings of the shared datasets' chunks
(``python -m bench.vector_profile``); text is words drawn from a Zipf-like vocabulary, so the
keyword side sees realistic posting-list sizes (a few very common words, a long tail).
Query samples are taken from loaded chunks: the chunk's vector with noise added (cosine
about 0.9) and a few of its less common words. Real questions have 5-10 terms after
stopwords, and on the shared datasets a question's OR query matches 13-26% of the documents
at the median: the keyword side's cost grows with that share.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg

MODEL = "bench-random"
VOCABULARY = 20_000
WORDS_PER_CHUNK = 60
CHUNKS_PER_DOCUMENT = 10
COMMON_WORDS = 50  # the head of the distribution plays the role of stopwords in queries
_BATCH = 20_000


@dataclass(frozen=True)
class ClusterShape:
    """Clustered vectors: ``normalize(sum of weight * C[row // size] over levels + e)``, each
    level a random centre shared by ``size`` consecutive chunks (a document, a topic, a
    domain), ``e`` the chunk's own noise (each a random vector of norm about 1). Chunks that
    share more levels are closer; clusters grow in number, not size, with the corpus."""

    levels: tuple[tuple[float, int], ...]  # (weight, size), sizes dividing 20,000


# Fitted by ``python -m bench.vector_profile`` (chunks of cmrc2018, hotpotqa, musique and
# mtrag, all-MiniLM-L6-v2 on onnx-int8): the closest profile of its grid.
CLUSTERED = ClusterShape(levels=((1.0, 5), (0.75, 20), (0.75, 200)))


@dataclass(frozen=True)
class QuerySample:
    text: str
    vector: npt.NDArray[np.float32]


class CachedQueryEmbedder:
    """An Embedder whose query vectors were computed beforehand: search timings then leave
    query embedding out, as the benchmark asks."""

    multilingual = False

    def __init__(self, name: str, dim: int, samples: Sequence[QuerySample]) -> None:
        self.name = name
        self.dim = dim
        self._vectors = {s.text: s.vector for s in samples}

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._vectors[text]

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        raise NotImplementedError("the benchmark embedder only answers precomputed queries")


def model_name(dim: int) -> str:
    return f"{MODEL}-{dim}"


def _word_probabilities() -> npt.NDArray[np.float64]:
    ranks = np.arange(1, VOCABULARY + 1, dtype=np.float64)
    weights = 1.0 / (ranks + 2.7)  # Zipf-Mandelbrot, exponent 1
    return np.asarray(weights / weights.sum(), dtype=np.float64)


def create_kb(conn: psycopg.Connection, name: str, dim: int) -> int:
    """A KB row and its active generation 1; returns the KB id."""
    with conn.transaction():
        row = conn.execute(
            "INSERT INTO knowledge_bases (name, embed_model, embed_dim) VALUES (%s, %s, %s) "
            "RETURNING id", [name, model_name(dim), dim]).fetchone()
        assert row is not None
        conn.execute("INSERT INTO generations (kb_id, generation, embed_model, embed_dim, state) "
                     "VALUES (%s, 1, %s, %s, 'active')", [row[0], model_name(dim), dim])
    return int(row[0])


def load_chunks(conn: psycopg.Connection, kb_id: int, count: int, dim: int, *,
                queries: int, query_terms: int = 8, seed: int = 7,
                shape: ClusterShape | None = None) -> list[QuerySample]:
    """COPY ``count`` synthetic chunks (and their documents) into KB ``kb_id``.

    Returns ``queries`` query samples drawn from the loaded chunks.
    """
    rng = np.random.default_rng(seed)
    probabilities = _word_probabilities()
    vocabulary = np.array([f"w{i}" for i in range(VOCABULARY)])
    query_rows = set(rng.choice(count, size=min(queries, count), replace=False).tolist())
    documents = (count + CHUNKS_PER_DOCUMENT - 1) // CHUNKS_PER_DOCUMENT
    with conn.transaction():
        conn.execute(
            "INSERT INTO documents (kb_id, generation, doc_key, source, title, content_hash) "
            "SELECT %s, 1, 'doc-' || g, 'bench/doc-' || g || '.txt', 'Document ' || g, "
            "md5(g::text) FROM generate_series(0, %s - 1) g", [kb_id, documents])
        first = conn.execute("SELECT min(id) FROM documents WHERE kb_id = %s",
                             [kb_id]).fetchone()
        assert first is not None
        conn.execute("CREATE UNLOGGED TABLE bench_stage (document_id bigint, position integer, "
                     "text text, embedding vector)")
    samples: list[QuerySample] = []
    with conn.cursor() as cur, cur.copy(
            "COPY bench_stage (document_id, position, text, embedding) FROM STDIN "
            "WITH (FORMAT BINARY)") as copy:
        copy.set_types(["int8", "int4", "text", "vector"])
        for start, vectors, words in _batches(rng, count, dim, probabilities, shape):
            for i in range(len(vectors)):
                row = start + i
                text = " ".join(vocabulary[words[i]])
                copy.write_row((first[0] + row // CHUNKS_PER_DOCUMENT,
                                row % CHUNKS_PER_DOCUMENT, text, vectors[i]))
                if row in query_rows:
                    samples.append(_query(rng, vectors[i], words[i], vocabulary, query_terms))
    with conn.transaction():
        # to_tsvector in SQL: the same 'simple' tsvector ingestion builds for these words.
        conn.execute(
            "INSERT INTO chunks (document_id, kb_id, generation, position, text, token_count, "
            "tsv, embedding, dim, doc_type, source, acl, updated_at) "
            "SELECT s.document_id, %s, 1, s.position, s.text, %s, "
            "to_tsvector('simple', s.text), s.embedding, %s, 'document', d.source, "
            "'{public}', now() FROM bench_stage s JOIN documents d ON d.id = s.document_id",
            [kb_id, WORDS_PER_CHUNK, dim])
        conn.execute("DROP TABLE bench_stage")
    return samples


def _batches(rng: np.random.Generator, count: int, dim: int, probabilities: Any,
             shape: ClusterShape | None = None) -> Iterator[tuple[int, Any, Any]]:
    """Chunk draws batch by batch: (first row, unit vectors, word ids).

    Lazy, so the caller's own draws between batches (query samples) keep their order: the
    loader and :func:`replay_samples` see the same random stream.
    """
    for start in range(0, count, _BATCH):
        size = min(_BATCH, count - start)
        vectors = _unit(rng, size, dim) if shape is None else _clustered(rng, size, dim, shape)
        yield start, vectors, rng.choice(VOCABULARY, size=(size, WORDS_PER_CHUNK),
                                         p=probabilities)


def clustered_vectors(rng: np.random.Generator, count: int, dim: int, shape: ClusterShape
                      ) -> npt.NDArray[np.float32]:
    """``count`` clustered unit vectors (as the loader draws them, without the words)."""
    return np.concatenate([_clustered(rng, min(_BATCH, count - start), dim, shape)
                           for start in range(0, count, _BATCH)])


def _unit(rng: np.random.Generator, count: int, dim: int) -> npt.NDArray[np.float32]:
    vectors = rng.standard_normal((count, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def _clustered(rng: np.random.Generator, size: int, dim: int, shape: ClusterShape
               ) -> npt.NDArray[np.float32]:
    # batches are a multiple of every level's size, so no cluster spans two batches
    vectors = _unit(rng, size, dim)
    for weight, members in shape.levels:
        centres = _unit(rng, -(-size // members), dim)
        vectors += np.float32(weight) * np.repeat(centres, members, axis=0)[:size]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def replay_samples(count: int, dim: int, *, queries: int, query_terms: int = 8,
                   seed: int = 7, shape: ClusterShape | None = None) -> list[QuerySample]:
    """The query samples :func:`load_chunks` returned for the same arguments, without loading.

    Replays its random draws (vectors and words batch by batch), so a kept benchmark
    database can be searched again with the queries that were drawn from its chunks.
    """
    rng = np.random.default_rng(seed)
    probabilities = _word_probabilities()
    vocabulary = np.array([f"w{i}" for i in range(VOCABULARY)])
    query_rows = set(rng.choice(count, size=min(queries, count), replace=False).tolist())
    samples: list[QuerySample] = []
    for start, vectors, words in _batches(rng, count, dim, probabilities, shape):
        for i in range(len(vectors)):
            if start + i in query_rows:
                samples.append(_query(rng, vectors[i], words[i], vocabulary, query_terms))
    return samples


def _query(rng: np.random.Generator, vector: npt.NDArray[np.float32],
           words: npt.NDArray[np.int64], vocabulary: npt.NDArray[np.str_],
           terms: int) -> QuerySample:
    noise = rng.standard_normal(vector.shape[0], dtype=np.float32)
    noisy = vector + noise * np.float32(0.48 / np.sqrt(vector.shape[0]))
    noisy /= np.linalg.norm(noisy)
    rare = [int(w) for w in dict.fromkeys(words.tolist()) if w >= COMMON_WORDS]
    picked = rng.choice(rare, size=min(terms, len(rare)), replace=False)
    return QuerySample(text=" ".join(vocabulary[picked]), vector=noisy.astype(np.float32))
