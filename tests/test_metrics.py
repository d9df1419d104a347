from __future__ import annotations

import math

import numpy as np
import pytest

from edge_ranker.evaluate.metrics import map_at_k, mrr_at_k, ndcg_at_k, spearman
from edge_ranker.evaluate.retrieval import RetrievalSet, evaluate_retrieval


def test_mrr():
    assert mrr_at_k(["a", "b", "c"], {"c"}) == pytest.approx(1 / 3)
    assert mrr_at_k(["a"] * 10 + ["x"], {"x"}, 10) == 0.0


def test_ndcg_hand_computed():
    # relevant at ranks 1 and 3, two relevant in total
    dcg = 1 + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3)
    assert ndcg_at_k(["r1", "n", "r2"], {"r1", "r2"}) == pytest.approx(dcg / idcg)


def test_map_hand_computed():
    assert map_at_k(["r1", "n", "r2"], {"r1", "r2"}) == pytest.approx((1 + 2 / 3) / 2)


def test_spearman():
    assert spearman(np.array([1, 2, 3]), np.array([10, 20, 30])) == pytest.approx(1.0)
    assert spearman(np.array([1, 2, 3]), np.array([3, 2, 1])) == pytest.approx(-1.0)


class OneHot:
    def encode(self, texts, role="passage"):
        return np.array([[1.0 if c in t else 0.0 for c in "abc"] for t in texts]) + 1e-3


def test_retrieval_end_to_end():
    ds = RetrievalSet("toy", {"q1": "a", "q2": "b"}, {"d1": "a", "d2": "b", "d3": "c"}, {"q1": {"d1"}, "q2": {"d3"}})
    r = evaluate_retrieval(OneHot(), ds)
    assert r["mrr@10"] == pytest.approx(100 * (1 + 1 / 3) / 2, rel=1e-6)
