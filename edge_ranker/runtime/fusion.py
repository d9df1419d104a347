"""How a query and the user's interests meet in one score, and the rank fusion a feed without a query uses.

With a query, the query decides what is relevant and the interests order within it: a document's score is its
query score (``query_scores``: standardised over the candidates) plus ``personal_weight`` times its share
of the query's words (``lexical.matched``, idf-weighted) times its interest score above the candidates' median.
A document that holds none of the query's words gets no lift, and one that holds some never sinks below one that
holds none and scored under it, so the interests can never carry a non-answer above an answer; among documents
that match alike, the interests decide where the query barely tells them apart. Reciprocal-rank fusion, used
before, gave the interests' list a larger spread than the query's own top 10 and let an unrelated history bury the
answer.

Without a query the interests alone order the feed, and a cold start orders by recency: each as one ranked list,
``1 / (k + rank)`` (k = 60, as in Xayn's engine), so its scores need no calibration.

Weights: ``PERSONAL_WEIGHT`` was chosen on the dev sets of ``eval --personal-search`` (users with an unrelated
history keep at least 97% of the empty store's nDCG@10; a history that favours one topic lifts a query matching
several). The query's BM25 weighs as much as its cosine; the semantic model's query cosine weighs twice the
relevance cosine where none of the query's words are in the documents, since it crosses languages better. Every
runtime reads these defaults from spec/constants.json (spec/rules/fusion.md).
"""

from __future__ import annotations

import numpy as np

from edge_ranker.runtime.constants import LEXICAL_WEIGHT as LEXICAL_WEIGHT
from edge_ranker.runtime.constants import PERSONAL_WEIGHT as PERSONAL_WEIGHT
from edge_ranker.runtime.constants import RRF_K as RRF_K
from edge_ranker.runtime.constants import SEMANTIC_QUERY_WEIGHT as SEMANTIC_QUERY_WEIGHT
from edge_ranker.runtime.constants import SINK
from edge_ranker.runtime.lexical import standardise


def rrf(scores: np.ndarray, k: int) -> np.ndarray:
    """Each document's ``1 / (k + rank)``, rank 1 for the highest score (ties: input order)."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(1, len(order) + 1)
    return 1.0 / (k + ranks)


def personal_lift(
    personal: np.ndarray, matched: np.ndarray, known: np.ndarray, weight: float, score: np.ndarray
) -> np.ndarray:
    """What the interests add to each document's query score ``score``: ``weight * matched * (personal - median)``,
    the median over the documents the interests can judge (``known``); 0 for the others. The median makes the lift
    signed around a typical document, so a history neither lifts nor sinks a whole result list.

    A document that holds a query word (``matched`` > 0) sinks at most ``SINK`` of the way down to the highest query
    score below its own of a document that holds none: the interests order what answers the query, and may lift
    an answer above a document that does not answer, but never let one that does not answer overtake one that
    does. Without it, the answers of a disliked topic would fall below documents without the word."""
    lift = np.zeros(personal.shape)
    if not weight or not known.any():
        return lift
    centred = personal - float(np.median(personal[known]))
    lift = np.where(known, weight * matched * centred, 0.0)
    others = np.sort(score[matched <= 0])
    below = np.searchsorted(others, score, side="left")  # how many non-answers score under each document
    sinking = (matched > 0) & (lift < 0) & (below > 0)
    if sinking.any():
        floor = others[np.maximum(below - 1, 0)]
        lift = np.where(sinking, np.maximum(lift, -SINK * (score - floor)), lift)
    return lift


def query_part(score: np.ndarray, lift: np.ndarray, wordless: np.ndarray) -> np.ndarray:
    """The query's part of each score: its query score, but one below every other document's whole score for a
    document without a word (which the interests never lift), so that it goes last whatever they add."""
    if not wordless.any():
        return score
    floor = float(np.min((score + lift)[~wordless])) - 1.0 if not wordless.all() else 0.0
    return np.where(wordless, floor, score)


def query_scores(
    cosine: np.ndarray,
    lexical: np.ndarray | None,
    weight: float,
    semantic: np.ndarray | None = None,
    cover: float = 1.0,
    semantic_weight: float = 0.0,
) -> np.ndarray:
    """What orders the candidates for a query: the relevance cosine, plus BM25 at ``weight`` times the share of
    the query's words the documents have (``cover``), plus the semantic model's cosine at ``semantic_weight`` times
    the share they lack, each standardised so no scale decides; the cosine alone when nothing joins it.

    Why the shares: BM25 and the relevance student both learnt a query and its passage in one language, while
    the semantic student is aligned across languages by parallel text. A query whose words the documents lack is
    in another language (or words the documents do not use), and there the words BM25 still matches are a few
    names and the semantic cosine carries the query. Within a language, over a corpus, the cover is near 1 and the
    score is the cosine plus BM25; the weights are this module's. BM25 counts by the cover even at
    ``semantic_weight`` 0."""
    lexical_share = weight * cover if lexical is not None else 0.0
    semantic_share = semantic_weight * (1.0 - cover) if semantic is not None else 0.0
    if not lexical_share and not semantic_share:
        return cosine
    out = standardise(cosine)
    if lexical_share:
        out = out + lexical_share * standardise(lexical)
    if semantic_share:
        out = out + semantic_share * standardise(semantic)
    return out


def recency(published: list[float | None], wordless: np.ndarray, k: int) -> np.ndarray:
    """The cold start's order as ``1 / (k + rank)``: the newest first, documents without a date after those with
    one, ties in input order, and a document without a word last (spec/rules/cold-start.md)."""
    times = np.array([-np.inf if p is None else p for p in published], dtype=np.float64)
    times = np.where(np.isfinite(times), times, -1e18) - np.arange(len(times)) * 1e-9
    return rrf(np.where(wordless, -np.inf, times), k)


def neutral(cosine: np.ndarray, unread: np.ndarray, blind: bool) -> np.ndarray:
    """A query's cosines where those that say nothing are neutral: all of them when the models cannot read the
    query (``blind``), else those of the documents they cannot read, at the mean of the others'. BM25 then ranks
    by the words alone."""
    if blind:
        return np.zeros_like(cosine)
    if not unread.any():
        return cosine
    known = cosine[~unread]
    return np.where(unread, known.mean() if known.size else 0.0, cosine)
