"""Reranker loading: real library code up to the weights, clear errors when they are missing,
and a full load + score of a tiny model written to disk here."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from store.errors import StoreError
from store.rerank import (
    CrossEncoderReranker,
    FlagRerankerAdapter,
    Reranker,
    is_flag_reranker,
    load_reranker,
)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1-layer BERT sequence classifier with a 15-word vocabulary (random weights)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-reranker")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "vpn", "leave", "annual", "days",
             "client", "install", "the", "policy", "how", "many"]
    (folder / "vocab.txt").write_text("\n".join(words), encoding="utf-8")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=32,
                        max_position_embeddings=64, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(folder)
    return folder


def test_missing_local_path_names_the_setting_to_fix(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(StoreError, match="RAGBOT_RERANKER_PATH") as info:
        load_reranker("BAAI/bge-reranker-base", str(missing))
    assert str(missing) in str(info.value)


@pytest.mark.parametrize("name", ["cross-encoder/ms-marco-MiniLM-L-6-v2",
                                  "BAAI/bge-reranker-base"])
def test_uncached_hub_model_is_a_clear_error_not_a_download(name: str) -> None:
    with pytest.raises(StoreError, match="RAGBOT_RERANKER_PATH") as info:
        load_reranker(name)
    assert name in str(info.value)


def test_empty_name_says_which_setting_to_set() -> None:
    with pytest.raises(StoreError, match="RAGBOT_RERANKER"):
        load_reranker("")


def test_bge_rerankers_go_through_flagembedding() -> None:
    assert is_flag_reranker("BAAI/bge-reranker-v2-m3")
    assert is_flag_reranker("bge-reranker-base")
    assert not is_flag_reranker("cross-encoder/ms-marco-MiniLM-L-6-v2")


def test_cross_encoder_from_a_local_folder_scores_every_text(tiny_model: Path) -> None:
    reranker = load_reranker("tiny-cross-encoder", str(tiny_model))
    assert isinstance(reranker, CrossEncoderReranker)
    assert isinstance(reranker, Reranker)
    texts = ["annual leave policy", "install the vpn client", "how many days"]
    scores = reranker.score("how many annual leave days", texts)
    assert len(scores) == len(texts)
    assert all(math.isfinite(s) for s in scores)
    assert reranker.score("how many annual leave days", texts) == pytest.approx(scores)
    assert reranker.score("anything", []) == []


def test_flag_reranker_from_a_local_folder_scores_every_text(tiny_model: Path) -> None:
    reranker = load_reranker("bge-reranker-tiny", str(tiny_model))
    assert isinstance(reranker, FlagRerankerAdapter)
    scores = reranker.score("annual leave", ["annual leave policy", "install the vpn client"])
    assert len(scores) == 2
    assert all(math.isfinite(s) for s in scores)
    # alone or in a padded batch: the same score up to float noise
    assert reranker.score("annual leave", ["annual leave policy"]) == pytest.approx(scores[:1])
