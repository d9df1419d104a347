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
    none) placed above it; ties go to the better ranked; those without a finite score after the others. Plain
    Python floats: over a window of 30, a third of the time numpy's per-call overhead costs, on every refresh."""
    head = order[:window]
    scored = np.isfinite(score[head])
    head, unscored = head[scored], head[~scored]
    if weight <= 0 or len(head) < 2:
        return np.concatenate([head, unscored, order[window:]])
    lowest = -np.finfo(float).max  # a lowered score that overflows: the lowest number, still a candidate
    left = list(zip(range(len(head)), score[head].tolist(), group[head].tolist()))  # in the order's places
    counts: dict[int, int] = {}
    picked: list[int] = []
    while left:
        best, best_lowered = 0, -np.inf
        for k, (_, s, g) in enumerate(left):
            lowered = max(s - weight * counts.get(g, 0), lowest) if g >= 0 else s
            if lowered > best_lowered:  # strictly: the first of equals, the better ranked
                best, best_lowered = k, lowered
        place, _, g = left.pop(best)
        picked.append(place)
        if g >= 0:
            counts[g] = counts.get(g, 0) + 1
    return np.concatenate([head[picked], unscored, order[window:]])
