"""Query -> document retrieval: MRR@10, nDCG@10, MAP@100 by cosine over the whole corpus.

The sets and their evaluation samples are ``edge_ranker.datasets.retrieval``'s. With ``lexical_weight`` the
cosine is fused with the query's BM25 over the corpus exactly as the runtime ranker fuses them
(``edge_ranker.runtime.lexical``), the words split by the shipped relevance model's tokenizer for every encoder,
so teacher and student rows share one lexical half.
"""

from __future__ import annotations

import numpy as np
from tokenizers import Tokenizer

from edge_ranker.datasets.retrieval import RetrievalSet
from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.metrics import retrieval_metrics, unit_rows
from edge_ranker.runtime.encoder import resolve_model_path
from edge_ranker.runtime.fusion import query_scores
from edge_ranker.runtime.lexical import Bag, TermIndex, bm25, terms


def evaluate_retrieval(
    query_encoder, ds: RetrievalSet, doc_encoder=None, lexical_weight: float = 0.0
) -> dict[str, float]:
    """``doc_encoder`` defaults to ``query_encoder``; pass another for the asymmetric mode."""
    scores = cosine_scores(query_encoder, ds, doc_encoder)
    if lexical_weight:
        scores = fused_scores(scores, lexical_scores(ds), lexical_weight)
    return scores_metrics(scores, ds)


def scores_metrics(scores: np.ndarray, ds: RetrievalSet) -> dict[str, float]:
    """The trec_eval figures of a (queries x documents) score matrix, plus the sample's size."""
    return retrieval_metrics(top_run(scores, ds), ds.qrels) | {"queries": len(ds.queries), "docs": len(ds.corpus)}


def lexical_scores(ds: RetrievalSet) -> np.ndarray:
    """BM25 of each query (rows, in ``ds.queries`` order) over the corpus (columns), as the runtime scores it,
    words split by the shipped relevance model's tokenizer whatever the encoder."""
    tok = Tokenizer.from_file(str(resolve_model_path("relevance") / "tokenizer.json"))
    docs = TermIndex.of([Bag.of(terms(tok, t)) for t in ds.corpus.values()])
    return np.stack([bm25(terms(tok, q), docs) for q in ds.queries.values()]) if ds.queries else np.zeros((0, 0))


def fused_scores(cosine: np.ndarray, words: np.ndarray, weight: float) -> np.ndarray:
    """Each query's cosines and BM25 fused as the runtime ranker fuses them."""
    return np.stack([query_scores(c, w, weight) for c, w in zip(cosine, words)])


def cosine_scores(query_encoder, ds: RetrievalSet, doc_encoder=None) -> np.ndarray:
    """Cosine of every query (rows, in ``ds.queries`` order) with every document (columns)."""
    doc_encoder = doc_encoder or query_encoder
    d = doc_encoder.encode(list(ds.corpus.values()), role="passage")
    q = query_encoder.encode(list(ds.queries.values()), role="query")
    if q.shape[1] != d.shape[1]:
        raise EdgeRankerError(f"query dim {q.shape[1]} != document dim {d.shape[1]}")
    return unit_rows(q) @ unit_rows(d).T


def top_run(scores: np.ndarray, ds: RetrievalSet) -> dict[str, dict[str, float]]:
    """Each query's 100 best documents with their scores (per-query figures come from this)."""
    doc_ids, q_ids = list(ds.corpus), list(ds.queries)
    top = np.argsort(-scores, axis=1)[:, :100]
    return {qid: {doc_ids[j]: float(scores[qi, j]) for j in top[qi]} for qi, qid in enumerate(q_ids)}


def retrieval_run(query_encoder, ds: RetrievalSet, doc_encoder=None) -> dict[str, dict[str, float]]:
    """Each query's 100 best documents by cosine, with their scores."""
    return top_run(cosine_scores(query_encoder, ds, doc_encoder), ds)
