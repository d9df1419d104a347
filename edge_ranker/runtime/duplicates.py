"""The same story told twice, and what the user already saw: the last step of a ranking, after the scores.

- **Duplicates folded** (spec/rules/duplicates.md): walking the ranking best first, a document whose semantic
  cosine to a document kept above it reaches ``DUPLICATE_COSINE`` is a duplicate of the closest such one; the kept
  documents keep their order, and the duplicates follow them all, in the order of their kept documents. The semantic
  student is aligned across languages by parallel text, so one story in several languages folds; two stories on one
  topic stay apart.
- **Reacted documents sunk** (spec/rules/reacted.md): the documents the user liked, disliked or opened go after the
  others, or leave the ranking; the order is otherwise kept.
"""

from __future__ import annotations

import numpy as np

from edge_ranker.runtime.constants import DUPLICATE_COSINE

BLOCK = 1024  # rows of the cosine matrix computed at once: 40 MB against 10,000 documents
FOLDS = ("fold", "keep")
REACTED = ("sink", "keep", "leave_out")


def fold(order: np.ndarray, vectors: np.ndarray, threshold: float = DUPLICATE_COSINE) -> tuple[np.ndarray, np.ndarray]:
    """``order`` (document indices, best first) with duplicates after the kept documents, and each document's
    kept document (-1 for a kept one). ``vectors``: unit semantic vectors, one row per document. The cosines are
    computed in blocks, and only documents with a partner above ``threshold`` are walked in Python."""
    n = len(vectors)
    of = np.full(n, -1, np.int64)
    if len(order) < 2:
        return order, of
    position = np.full(n, n, np.int64)
    position[order] = np.arange(len(order))
    partners: dict[int, list[tuple[int, float]]] = {}
    for start in range(0, n, BLOCK):
        sims = vectors[start : start + BLOCK] @ vectors.T
        rows, cols = np.nonzero(sims >= threshold)
        for i, j in zip(rows.tolist(), cols.tolist()):
            if start + i != j:
                partners.setdefault(start + i, []).append((j, float(sims[i, j])))
    kept = np.ones(n, bool)
    for i in sorted(partners, key=position.__getitem__):  # best first: a partner above is decided before
        above = [(s, j) for j, s in partners[i] if position[j] < position[i] and kept[j]]
        if above:
            kept[i] = False
            of[i] = max(above, key=lambda x: (x[0], -position[x[1]]))[1]
    head = order[kept[order]]
    rank_of_kept = np.empty(n, np.int64)
    rank_of_kept[head] = np.arange(len(head))
    tail = order[~kept[order]]
    tail = tail[np.argsort(rank_of_kept[of[tail]], kind="stable")]  # in the order of their kept documents
    return np.concatenate([head, tail]), of


def last(order: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The fold's order with the documents the scores put last (``end``: no word; for the interests and a query, one
    the models cannot read) after the duplicates: they go last, whatever comes."""
    return np.concatenate([order[~end[order]], order[end[order]]])


def sink(order: np.ndarray, reacted: np.ndarray, how: str, folded: np.ndarray, end: np.ndarray) -> np.ndarray:
    """``order`` with the ``reacted`` documents (a mask) after the others ("sink") or left out ("leave_out"); the
    duplicates (``folded`` >= 0) after those, and what the scores put last (``end``, ``last``) after all; "keep": as
    it is."""
    if how == "keep" or not reacted.any():
        return order
    if how == "leave_out":
        return order[~reacted[order]]
    dup, late, end = folded[order] >= 0, reacted[order], end[order]
    return np.concatenate([order[~late & ~dup & ~end], order[late & ~dup & ~end], order[dup & ~end], order[end]])
