"""LEAF's un-squared Euclidean distance to the target."""

from __future__ import annotations

import torch

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss


class L2(Loss):
    name = "l2"

    def __call__(self, b: Batch) -> torch.Tensor:
        return (b.student - b.target[b.group]).norm(dim=-1).mean()
