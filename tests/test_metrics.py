from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import write_bitexts

from edge_ranker.datasets.bitext import TRANSLATION_SETS, load_bitext
from edge_ranker.datasets.retrieval import RetrievalSet
from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.metrics import retrieval_metrics, spearman
from edge_ranker.evaluate.retrieval import evaluate_retrieval, lexical_scores
from edge_ranker.evaluate.translation import evaluate_translation, retrieval_accuracy


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


def test_retrieval_with_the_runtimes_lexical_fusion():
    """The cosine prefers a wrong document; the query's words, fused as the runtime fuses them, fix it."""
    ds = RetrievalSet(
        "toy", {"q": "Red apple PIE"}, {"d1": "blue sky", "d2": "an apple pie recipe", "d3": "red car"}, {"q": {"d2"}}
    )
    enc = Lookup({"Red apple PIE": [1, 0, 0], "blue sky": [1, 0.1, 0], "an apple pie recipe": [1, 1, 0]})
    assert evaluate_retrieval(enc, ds)["mrr@10"] == pytest.approx(50.0)
    assert evaluate_retrieval(enc, ds, lexical_weight=1.0)["mrr@10"] == pytest.approx(100.0)
    words = lexical_scores(ds)
    assert words.shape == (1, 3) and words[0, 0] == 0 < words[0, 2] < words[0, 1]


class Lookup:
    """Each test sentence has a fixed vector, so every cosine in a test can be worked out by hand."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def encode(self, texts, role="passage"):
        return np.array([self.table.get(t, [0.0, 0.0, 0.0]) for t in texts], dtype=np.float32)


def test_translation_accuracy_hand_computed():
    src = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])
    # cosines: row 0 -> (0.89, 0, 0); row 1 -> (0.45, 0.29, 0): retrieves row 0, wrong; row 2 -> (0, 0.96, 1)
    tgt = np.array([[1.0, 0.5, 0], [0, 0.3, 1.0], [0, 0, 1.0]])
    assert retrieval_accuracy(src, tgt, ["x", "y", "z"]) == pytest.approx(200 / 3)
    # the retrieved row's text equals row 1's gold text (a sentence that occurs twice): right
    assert retrieval_accuracy(src, tgt, ["x", "x", "z"]) == pytest.approx(100.0)


def test_evaluate_translation_both_directions_and_sets(tmp_path):
    write_bitexts(tmp_path, [b"Hund", b"Katze", b"Maus"], [b"dog", b"cat", b"mouse"])
    enc = Lookup(
        {
            "Hund": [1, 0, 0],
            "Katze": [0, 1, 0],
            "Maus": [0, 0.9, 0.1],
            "dog": [1, 0, 0],
            "cat": [0, 1, 0],
            "mouse": [0, 0, 1],
        }
    )
    # de->en: Maus retrieves cat (0.9 > 0.1): 2/3. en->de: mouse retrieves Maus (the only one with a z part): 3/3.
    for name in TRANSLATION_SETS:
        r = evaluate_translation(enc, tmp_path, name, langs=["de"])
        assert r["de-en"] == pytest.approx(200 / 3) and r["en-de"] == pytest.approx(100.0)
        assert r["avg"] == pytest.approx((200 / 3 + 100) / 2)


def test_translation_files_keep_rows_aligned_through_bad_bytes_and_empty_lines(tmp_path):
    write_bitexts(tmp_path, [b"Hund", b"\xff\xfe kaputt", b"", b"Maus"], [b"dog", b"broken", b"empty", b"mouse"])
    de, en = load_bitext(tmp_path, "tatoeba", "de")
    assert len(de) == len(en) == 4 and de[0] == "Hund" and de[3] == "Maus" and "\ufffd" in de[1] and de[2] == ""


def test_translation_errors_are_messages(tmp_path):
    with pytest.raises(EdgeRankerError, match="not found"):
        load_bitext(tmp_path, "tatoeba", "de")
    with pytest.raises(EdgeRankerError, match="unknown translation set"):
        load_bitext(tmp_path, "wmt", "de")
    with pytest.raises(EdgeRankerError, match="no flores bitext"):
        load_bitext(tmp_path, "flores", "xx")
    write_bitexts(tmp_path, [b"Hund", b"Katze"], [b"dog"])
    with pytest.raises(EdgeRankerError, match="not row-aligned"):
        load_bitext(tmp_path, "flores", "de")
