"""The paper's Eq. 2, corrected: source AND translation regress to PCA(teacher(source)), summed over dimensions
and averaged over sentences."""

from __future__ import annotations

import torch

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss


class MSE(Loss):
    name = "mse"

    def __call__(self, b: Batch) -> torch.Tensor:
        return ((b.student - b.target[b.group]) ** 2).sum(-1).mean()
