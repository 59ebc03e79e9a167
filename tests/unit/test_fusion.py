"""Weighted reciprocal rank fusion and the per-query weights (pure)."""

from __future__ import annotations

import pytest

from store.fusion import (
    CHINESE_MONOLINGUAL_DENSE_WEIGHT,
    RRF_K,
    FusionWeights,
    distinct_docs,
    fuse,
    fusion_weights,
    rrf_scores,
)


def test_rrf_score_is_the_sum_of_weighted_reciprocal_ranks() -> None:
    scores = rrf_scores({"dense": [1, 2], "keyword": [2, 3]}, {"dense": 1.0, "keyword": 0.5})
    assert scores[1] == pytest.approx(1 / (RRF_K + 1))
    assert scores[2] == pytest.approx(1 / (RRF_K + 2) + 0.5 / (RRF_K + 1))
    assert scores[3] == pytest.approx(0.5 / (RRF_K + 2))


def test_item_high_on_both_sides_beats_items_first_on_one_side() -> None:
    # 7 is first on neither side but third on both; 1 and 2 top one side each.
    order = fuse({"dense": [1, 5, 7, 8], "keyword": [2, 6, 7, 9]},
                 {"dense": 1.0, "keyword": 1.0})
    assert order[0] == 7
    assert set(order[1:3]) == {1, 2}


def test_equal_scores_break_ties_by_id() -> None:
    assert fuse({"dense": [4], "keyword": [3]}, {"dense": 1.0, "keyword": 1.0}) == [3, 4]


def test_low_dense_weight_lets_keyword_order_win_for_chinese() -> None:
    # Dense noise (9, 8, 7) interleaves with the keyword matches under plain RRF.
    rankings = {"dense": [9, 8, 7], "keyword": [1, 2, 3]}
    assert fuse(rankings, {"dense": 1.0, "keyword": 1.0}) == [1, 9, 2, 8, 3, 7]
    weighted = fuse(rankings, {"dense": CHINESE_MONOLINGUAL_DENSE_WEIGHT, "keyword": 1.0})
    assert weighted[:3] == [1, 2, 3]


def test_chinese_dense_vote_keeps_keyword_top_and_only_fills_after_it() -> None:
    keyword = list(range(1, 51))  # 50 keyword matches, best first
    dense = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 101, 102]  # disagrees
    order = fuse({"dense": dense, "keyword": keyword},
                 {"dense": CHINESE_MONOLINGUAL_DENSE_WEIGHT, "keyword": 1.0})
    assert order[:15] == list(range(1, 16))
    assert order[-2:] == [101, 102]  # dense-only chunks come after every keyword match


def test_auto_weights_depend_on_query_language_and_model() -> None:
    assert fusion_weights("auto", "how do I reset my password", multilingual=False) == \
        FusionWeights(1.0, 1.0)
    zh = fusion_weights("auto", "回滚操作是否需要二次审批", multilingual=False)
    assert zh.dense == CHINESE_MONOLINGUAL_DENSE_WEIGHT < zh.keyword
    assert fusion_weights("auto", "回滚操作是否需要二次审批", multilingual=True) == \
        FusionWeights(1.0, 1.0)


def test_debug_modes_switch_sides_off() -> None:
    assert fusion_weights("dense", "q", multilingual=False) == FusionWeights(1.0, 0.0)
    assert fusion_weights("keyword", "q", multilingual=False) == FusionWeights(0.0, 1.0)
    assert fusion_weights("rrf", "回滚", multilingual=False) == FusionWeights(1.0, 1.0)
    with pytest.raises(ValueError, match="unknown fusion mode"):
        fusion_weights("bm25", "q", multilingual=False)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid fusion weights"):
        FusionWeights(0.0, 0.0)


def test_distinct_docs_keeps_first_rank_of_each_document() -> None:
    assert distinct_docs(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]
