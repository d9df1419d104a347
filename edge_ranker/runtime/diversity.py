"""Several interests near the top of a feed: a reader of two topics sees both, not ten of the one read more.

The interests order a feed by each document's personal score, so the topic the reader spent the most time on fills
the top and a second one starts below it. ``diversify`` re-ranks the head of the feed greedily: each next place goes
to the document whose personal score, less ``weight`` for every document above it that is closest to the same liked
interest, is the highest (spec/rules/diversity.md). At weight 0 the order is the scores'; a document close to no
liked interest (group -1) is never lowered. The rest of the feed keeps its order.
"""

from __future__ import annotations

import numpy as np


def diversify(order: np.ndarray, score: np.ndarray, group: np.ndarray, weight: float, window: int) -> np.ndarray:
    """``order`` (document indices, best first) with its first ``window`` documents re-ranked: each next the one of
    the highest ``score`` less ``weight`` times the documents of its ``group`` (its closest liked interest, -1 for
    none) placed above it; ties go to the better ranked."""
    head = order[:window]
    if weight <= 0 or len(head) < 2:
        return order
    groups, compact = np.unique(group[head], return_inverse=True)
    counts = np.zeros(len(groups) + 1)  # the last slot, of group -1, stays 0
    slot = np.where(group[head] >= 0, compact, len(groups))
    left = score[head].astype(np.float64)
    left = np.where(np.isfinite(left), left, -1e300)  # picked ones are -inf: an unscored one is still a candidate
    picked = np.empty(len(head), np.int64)
    for place in range(len(head)):
        j = int(np.argmax(left - weight * counts[slot]))  # the first of equals: the better ranked
        picked[place] = j
        left[j] = -np.inf
        if slot[j] < len(groups):
            counts[slot[j]] += 1
    return np.concatenate([head[picked], order[window:]])
