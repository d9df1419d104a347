"""Weighted reciprocal-rank fusion, ``sum_i w_i / (k + rank_i)`` (k = 60, as in Xayn's later engine): ranks
need no calibration between the scores of two unrelated models."""

from __future__ import annotations

import numpy as np

# Default weights: an explicit query weighs twice the implicit interests; the query's BM25 weighs as much as its
# cosine; the semantic model's query cosine weighs twice the relevance cosine where none of the query's words are
# in the documents (``query_scores``): the semantic model crosses languages better (its cosine on FLORES across
# languages 0.434 against 0.286 nDCG@10), and weight 2 lifts the search across languages on Bible chapters (a dev
# set) from 0.162 to 0.176 and on FLORES from 0.468 to 0.485 (bench/EXPERIMENTS.md, "The semantic query weight
# across languages"). The JVM core's Ranker mirrors these defaults (its golden test checks them).
PERSONAL_WEIGHT = 0.5
QUERY_WEIGHT = 1.0
LEXICAL_WEIGHT = 1.0
SEMANTIC_QUERY_WEIGHT = 2.0


def rrf(scores: np.ndarray, weight: float, k: int) -> np.ndarray:
    """Each document's contribution ``weight / (k + rank)``, rank 1 for the highest score (ties: input order)."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(1, len(order) + 1)
    return weight / (k + ranks)
