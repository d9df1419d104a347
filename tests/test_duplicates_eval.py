"""``eval --duplicates``' traps: the demo feed's pairs of different stories that would fold at each cosine."""

from __future__ import annotations

import numpy as np

from edge_ranker.evaluate.duplicates import SWEEP, traps
from edge_ranker.runtime.constants import DUPLICATE_COSINE


class Fixed:
    """An encoder whose vectors are rows of one matrix, whatever the texts."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors

    def encode(self, texts, role=None):
        return self.vectors[: len(texts)]


def test_traps_count_the_pairs_at_or_above_each_cosine():
    n = 24  # the demo feed's stories
    same = traps(Fixed(np.tile([[1.0, 0.0]], (n, 1))))
    assert same["stories"] == n and same["pairs"] == n * (n - 1) // 2
    assert {k: v for k, v in same.items() if k not in ("stories", "pairs")} == {
        str(c): n * (n - 1) // 2 for c in sorted({*SWEEP, DUPLICATE_COSINE})
    }
    apart = np.eye(n)
    apart[1] = [0.6, 0.8] + [0.0] * (n - 2)  # one pair at cosine 0.6: counted at 0.6, not above
    got = traps(Fixed(apart))
    assert got["0.6"] == 1 and got["0.55"] == 1 and got["0.65"] == 0 and got[str(DUPLICATE_COSINE)] == 0
