"""Ranking and correlation metrics, written out so tests can check them against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import spearmanr


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(spearmanr(a, b).statistic)


def mrr_at_k(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if d in relevant:
            return 1.0 / (i + 1)
    return 0.0


def ndcg_at_k(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    """Binary-gain nDCG (log2 discount), as sentence-transformers' InformationRetrievalEvaluator."""
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


def map_at_k(ranked: list[str], relevant: set[str], k: int = 100) -> float:
    hits, total = 0, 0.0
    for i, d in enumerate(ranked[:k]):
        if d in relevant:
            hits += 1
            total += hits / (i + 1)
    return total / min(len(relevant), k) if relevant else 0.0
