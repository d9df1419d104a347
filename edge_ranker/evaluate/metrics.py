"""Ranking and correlation metrics from well-kept libraries: trec_eval (via pytrec_eval) and scipy.

trec_eval's ``recip_rank`` has no cut-off, so MRR@10 is computed on each query's top 10 only.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from edge_ranker.errors import EdgeRankerError

RunScores = dict[str, dict[str, float]]  # query id -> {doc id: score}


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1, so dot products are cosines; an all-zero row stays zero instead of NaN."""
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(spearmanr(a, b).statistic)


def _top(run: RunScores, k: int) -> RunScores:
    return {q: dict(sorted(docs.items(), key=lambda kv: -kv[1])[:k]) for q, docs in run.items()}


def retrieval_metrics(run: RunScores, qrels: dict[str, set[str]]) -> dict[str, float]:
    """MRR@10, nDCG@10, MAP@100 and Recall@100 (x100, averaged over queries) with binary relevance."""
    try:
        import pytrec_eval
    except ImportError as exc:
        raise EdgeRankerError("retrieval metrics need pytrec_eval: pip install 'edge-ranker[train]'") from exc
    judged = {q: {d: 1 for d in rel} for q, rel in qrels.items() if q in run and rel}
    if not judged:
        raise EdgeRankerError("no query of the run has relevance judgments")
    top100 = _top({q: run[q] for q in judged}, 100)
    deep = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10", "map_cut.100", "recall.100"}).evaluate(top100)
    mrr = pytrec_eval.RelevanceEvaluator(judged, {"recip_rank"}).evaluate(_top(top100, 10))
    names = {"ndcg@10": "ndcg_cut_10", "map@100": "map_cut_100", "recall@100": "recall_100"}
    out = {"mrr@10": 100 * float(np.mean([mrr[q]["recip_rank"] for q in judged]))}
    out |= {name: 100 * float(np.mean([deep[q][m] for q in judged])) for name, m in names.items()}
    return out
