"""Several interests near the top of a feed: a reader of two topics sees both, not ten of the one read more.

The interests order a feed by each document's personal score, so the topic the reader spent the most time on fills
the top and a second one starts below it. ``diversify`` re-ranks the head of the feed greedily: each next place goes
to the document whose personal score, less ``weight`` for every document above it that is closest to the same liked
interest, is the highest (spec/rules/diversity.md). At weight 0 the order is the scores'; a document of no group (-1)
is never lowered, and one without a finite score (the models cannot read it) follows the others. The rest of the
feed keeps its order.
"""

from __future__ import annotations

import numpy as np


def diversify(order: np.ndarray, score: np.ndarray, group: np.ndarray, weight: float, window: int) -> np.ndarray:
    """``order`` (document indices, best first) with its first ``window`` documents re-ranked: each next the one of
    the highest ``score`` less ``weight`` times the documents of its ``group`` (its closest liked interest, -1 for
    none) placed above it; ties go to the better ranked; those without a finite score after the others."""
    head = order[:window]
    scored = np.isfinite(score[head])
    head, unscored = head[scored], head[~scored]
    if weight <= 0 or len(head) < 2:
        return np.concatenate([head, unscored, order[window:]])
    groups, compact = np.unique(group[head], return_inverse=True)
    slot = np.where(group[head] >= 0, compact, len(groups))
    counts = np.zeros(len(groups) + 1)  # the last slot, of group -1, stays 0
    placed = np.zeros(len(head), bool)
    picked = np.empty(len(head), np.int64)
    for place in range(len(head)):
        with np.errstate(over="ignore"):  # a huge weight lowers to -inf: the lowest, still a candidate
            lowered = np.maximum(score[head] - weight * counts[slot], np.finfo(float).min)
        j = int(np.nanargmax(np.where(placed, np.nan, lowered)))  # the first of equals: the better ranked
        picked[place] = j
        placed[j] = True
        if slot[j] < len(groups):
            counts[slot[j]] += 1
    return np.concatenate([head[picked], unscored, order[window:]])
