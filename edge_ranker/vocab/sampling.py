"""Exponentially smoothed language sampling, as in mBERT and the paper: q_i = p_i^alpha / sum_j p_j^alpha.

Text amount is counted in characters: sentence lengths differ a lot across corpora (Tatoeba vs news) and
word counts are not comparable across scripts, while WordPiece learns from character sequences.
"""

from __future__ import annotations

import random

from edge_ranker.errors import EdgeRankerError


def smoothed_weights(amounts: dict[str, float], alpha: float = 0.7) -> dict[str, float]:
    """Return each language's sampling share after smoothing its raw share with exponent alpha."""
    if not 0.0 <= alpha <= 1.0:
        raise EdgeRankerError(f"alpha must be in [0, 1], got {alpha}")
    if not amounts:
        raise EdgeRankerError("no languages given")
    empty = [lang for lang, n in amounts.items() if n <= 0]
    if empty:
        raise EdgeRankerError(f"no text for language(s): {', '.join(sorted(empty))}")
    total = float(sum(amounts.values()))
    powered = {lang: (n / total) ** alpha for lang, n in amounts.items()}
    norm = sum(powered.values())
    return {lang: v / norm for lang, v in powered.items()}


def sample_to_budget(lines: list[str], target_chars: int, rng: random.Random) -> list[str]:
    """Pick lines until about ``target_chars`` characters: a shuffled pass, repeated for small corpora.

    Undersampling keeps a random subset; oversampling repeats whole shuffled passes, so every line is
    used before any is used twice.
    """
    if not lines or target_chars <= 0:
        return []
    out: list[str] = []
    chars = 0
    while chars < target_chars:
        order = list(range(len(lines)))
        rng.shuffle(order)
        for i in order:
            out.append(lines[i])
            chars += len(lines[i])
            if chars >= target_chars:
                break
    return out
