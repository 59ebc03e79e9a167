"""The pinned transformers must keep both model libraries importable (FlagEmbedding 1.4.2
breaks under transformers 5.x)."""

from __future__ import annotations


def test_sentence_transformers_and_flagembedding_import_together() -> None:
    import sentence_transformers
    import transformers
    from FlagEmbedding import BGEM3FlagModel, FlagReranker

    assert int(transformers.__version__.split(".")[0]) < 5
    assert hasattr(sentence_transformers, "CrossEncoder")
    assert callable(FlagReranker)
    assert callable(BGEM3FlagModel)
