"""Distillation losses, one per module, each a small object over a ``Batch`` that names the fields it needs.

Every module here is imported below, and a ``Loss`` subclass registers itself under its ``name``: a new loss is
its own file (and, if it reads a new batch field, that field in ``batch.py``).

relational and pairwise take the teacher's side of their distributions from ``Batch.teacher`` when it is there:
the teacher's full-dimension vectors (one per target), so they pass on the ranking that PCA-128 loses
(multilingual-e5-small: 79.8 -> 59.9 nDCG@10 on SciFact) instead of the PCA targets' own similarities.
"""

from __future__ import annotations

import importlib
import pkgutil

import torch

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.config import TEMPERATURE
from edge_ranker.distill.losses.base import LOSSES, Loss

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


class Combined:
    """The weighted sum of the named losses, each built once with the in-batch softmax ``temperature``."""

    def __init__(self, weights: dict[str, float], temperature: float = TEMPERATURE) -> None:
        unknown = set(weights) - set(LOSSES)
        if unknown:
            raise ValueError(f"unknown loss(es) {sorted(unknown)}; choose from {sorted(LOSSES)}")
        self.parts = [(name, w, LOSSES[name](temperature)) for name, w in weights.items() if w]

    def __call__(self, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        """The total, and each part's value."""
        total = batch.student.new_zeros(())
        parts: dict[str, float] = {}
        for name, w, loss in self.parts:
            missing = [f for f in loss.needs if getattr(batch, f) is None]
            if missing:
                raise ValueError(f"the {name} loss needs the batch's {', '.join(missing)}")
            v = loss(batch)
            parts[name] = float(v.detach())
            total = total + w * v
        return total, parts


__all__ = ["LOSSES", "TEMPERATURE", "Batch", "Combined", "Loss"]
