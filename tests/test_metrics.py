from __future__ import annotations

import math

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.metrics import retrieval_metrics, spearman
from edge_ranker.evaluate.retrieval import RetrievalSet, evaluate_retrieval


def test_mrr_at_10_hand_computed():
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {f"n{i}": 20.0 - i for i in range(10)} | {"x": 1.0}}
    m = retrieval_metrics(run, {"q1": {"c"}, "q2": {"x"}})
    assert m["mrr@10"] == pytest.approx(100 * (1 / 3 + 0.0) / 2)  # q2's hit is at rank 11: beyond the cut


def test_ndcg_map_recall_hand_computed():
    # relevant at ranks 1 and 3, plus one relevant document never retrieved
    run = {"q": {"r1": 0.9, "n": 0.8, "r2": 0.7}}
    m = retrieval_metrics(run, {"q": {"r1", "r2", "r3"}})
    dcg = 1 + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert m["ndcg@10"] == pytest.approx(100 * dcg / idcg)
    assert m["map@100"] == pytest.approx(100 * (1 + 2 / 3) / 3)
    assert m["recall@100"] == pytest.approx(100 * 2 / 3)


def test_unjudged_run_is_an_error():
    with pytest.raises(EdgeRankerError):
        retrieval_metrics({"q": {"d": 1.0}}, {"other": {"d"}})


def test_spearman():
    assert spearman(np.array([1, 2, 3]), np.array([10, 20, 30])) == pytest.approx(1.0)
    assert spearman(np.array([1, 2, 3]), np.array([3, 2, 1])) == pytest.approx(-1.0)


class OneHot:
    def encode(self, texts, role="passage"):
        return np.array([[1.0 if c in t else 0.0 for c in "abc"] for t in texts]) + 1e-3


def test_retrieval_end_to_end():
    ds = RetrievalSet("toy", {"q1": "a", "q2": "b"}, {"d1": "ab", "d2": "b", "d3": "c"}, {"q1": {"d1"}, "q2": {"d3"}})
    r = evaluate_retrieval(OneHot(), ds)
    assert r["mrr@10"] == pytest.approx(100 * (1 + 1 / 3) / 2, rel=1e-6)
