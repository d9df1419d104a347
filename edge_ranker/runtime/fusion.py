"""How a query and the user's interests meet in one score, and the rank fusion a feed without a query uses.

With a query, the query decides what is relevant and the interests order within it: a document's score is its
query score (``lexical.query_scores``: standardised over the candidates) plus ``personal_weight`` times its share
of the query's words (``lexical.matched``, idf-weighted) times its interest score above the candidates' median.
A document that holds none of the query's words gets no lift, so the interests can never carry it above one that
answers the query; among documents that match alike, the interests decide where the query barely tells them
apart. Reciprocal-rank fusion, used before, gave the interests' list a larger spread than the query's own top 10
and let an unrelated history bury the answer (bench/RESULTS.md, "Search with a history").

Without a query the interests alone order the feed, and a cold start orders by recency: each as one ranked list,
``1 / (k + rank)`` (k = 60, as in Xayn's engine), so its scores need no calibration.

Weights: ``PERSONAL_WEIGHT`` was chosen on the dev sets of ``eval --personal-search`` (users with an unrelated
history keep at least 97% of the empty store's nDCG@10; a history that favours one topic lifts a query matching
several). The query's BM25 weighs as much as its cosine; the semantic model's query cosine weighs twice the
relevance cosine where none of the query's words are in the documents, since it crosses languages better. The JVM
core's Ranker mirrors these defaults (its golden test checks them).
"""

from __future__ import annotations

import numpy as np

PERSONAL_WEIGHT = 16.0
LEXICAL_WEIGHT = 1.0
SEMANTIC_QUERY_WEIGHT = 2.0
RRF_K = 60


def rrf(scores: np.ndarray, k: int) -> np.ndarray:
    """Each document's ``1 / (k + rank)``, rank 1 for the highest score (ties: input order)."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(1, len(order) + 1)
    return 1.0 / (k + ranks)


def personal_lift(personal: np.ndarray, matched: np.ndarray, known: np.ndarray, weight: float) -> np.ndarray:
    """What the interests add to each document's query score: ``weight * matched * (personal - median)``, the
    median over the documents the interests can judge (``known``); 0 for the others. The median makes the lift
    signed around a typical document, so a history neither lifts nor sinks a whole result list."""
    lift = np.zeros(personal.shape)
    if weight and known.any():
        centred = personal - float(np.median(personal[known]))
        lift = np.where(known, weight * matched * centred, 0.0)
    return lift


def query_part(score: np.ndarray, lift: np.ndarray, wordless: np.ndarray) -> np.ndarray:
    """The query's part of each score: its query score, but one below every other document's whole score for a
    document without a word (which the interests never lift), so that it goes last whatever they add."""
    if not wordless.any():
        return score
    floor = float(np.min((score + lift)[~wordless])) - 1.0 if not wordless.all() else 0.0
    return np.where(wordless, floor, score)
