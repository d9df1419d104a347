"""The same story told twice, and what the user already saw: the last step of a ranking, after the scores.

- **Duplicates folded** (spec/rules/duplicates.md): walking the first ``FOLD_WINDOW`` documents of the ranking best
  first, a document whose semantic cosine to a document kept above it reaches ``DUPLICATE_COSINE`` is a duplicate of
  the closest such one; the kept documents keep their order, and the duplicates follow all the others, in the order
  of their kept documents. The semantic
  student is aligned across languages by parallel text, so one story in several languages folds; two stories on one
  topic stay apart.
- **Reacted documents sunk** (spec/rules/reacted.md): the documents the user liked, disliked or opened go after the
  others, or leave the ranking; the order is otherwise kept.
"""

from __future__ import annotations

import functools

import numpy as np

from edge_ranker.runtime.constants import DUPLICATE_COSINE, FOLD_WINDOW

FOLDS = ("fold", "keep")
REACTED = ("sink", "keep", "leave_out")


def fold(
    order: np.ndarray,
    vectors: np.ndarray,
    foldable: np.ndarray | None = None,
    threshold: float = DUPLICATE_COSINE,
    window: int = FOLD_WINDOW,
) -> tuple[np.ndarray, np.ndarray]:
    """``order`` (document indices, best first) with the duplicates among its first ``window`` documents after all
    the others, and each document's kept document (-1 for a kept one). ``vectors``: unit semantic vectors, one row
    per document; ``foldable``: the documents that may fold at all (default all). One matrix product of the window;
    a loop only over the kept documents that have a close one ranked below them, each marking those at once."""
    of = np.full(len(vectors), -1, np.int64)
    head = order[:window]
    if len(head) < 2:
        return order, of
    rows = vectors[head]
    if foldable is not None and not foldable[head].all():
        rows = np.where(foldable[head, None], rows, 0.0)
    sims = rows @ rows.T
    close = (sims >= threshold) & _above(len(head))  # row i: the documents ranked above it that are close
    dup = np.zeros(len(head), bool)
    for j in np.flatnonzero(close.any(axis=0)).tolist():  # best first: whether j is kept is decided above it
        if not dup[j]:
            dup |= close[:, j]
    if dup.any():  # each under the closest kept document above it; ties: the better ranked
        under = np.where(close[dup] & ~dup[None, :], sims[dup], -np.inf).argmax(axis=1)
        of[head[dup]] = head[under]
    kept = ~dup
    place = np.empty(len(vectors), np.int64)
    place[head] = np.arange(len(head))
    duplicates = head[~kept]
    duplicates = duplicates[np.argsort(place[of[duplicates]], kind="stable")]  # in the order of their kept ones
    return np.concatenate([head[kept], order[window:], duplicates]), of


@functools.cache
def _above(n: int) -> np.ndarray:
    """An (n, n) mask of the pairs (i, j) with j ranked above i: the window's shape, made once."""
    return np.tri(n, k=-1, dtype=bool)


def last(order: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The fold's order with the documents the scores put last (``end``: no word; for the interests, one the models
    cannot read) after the duplicates: they go last, whatever comes."""
    return np.concatenate([order[~end[order]], order[end[order]]])


def sink(order: np.ndarray, reacted: np.ndarray, how: str, folded: np.ndarray, end: np.ndarray) -> np.ndarray:
    """``order`` with the ``reacted`` documents (a mask) after the others ("sink") or left out ("leave_out", with the
    duplicates folded under them); the duplicates (``folded`` >= 0) after those, and what the scores put last
    (``end``, ``last``) after all; "keep": as it is."""
    if how == "keep" or not reacted.any():
        return order
    if how == "leave_out":  # with the copies folded under them: the user has seen that story
        gone = reacted | ((folded >= 0) & reacted[np.maximum(folded, 0)])
        return order[~gone[order]]
    dup, late, end = folded[order] >= 0, reacted[order], end[order]
    return np.concatenate([order[~late & ~dup & ~end], order[late & ~dup & ~end], order[dup & ~end], order[end]])
