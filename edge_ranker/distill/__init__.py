"""Distillation: teacher targets, PCA, the 1-layer student, losses and the Accelerate training loop.

``distill`` (the library function behind ``edge-ranker distill``) is importable from here.
"""

from __future__ import annotations

import os
from typing import Any

# oneDNN keeps compiled primitives for up to 1,024 input shapes, and batches of every text length make new ones: a
# relevance training process grew from 3 GB to 9.4 GB over its 8 epochs, and three side by side overran 24 GB. At 8
# it stayed at 2.6 GB through an epoch with the same loss to the last digit, 3% slower at most (bench/RESULTS.md,
# Session 28). Set before torch creates its first primitive; a value the user set wins.
os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "8")


def __getattr__(name: str) -> Any:
    if name == "distill":  # lazy, so importing a submodule does not pull in every training dependency
        from edge_ranker.distill.recipes import distill

        return distill
    raise AttributeError(name)
