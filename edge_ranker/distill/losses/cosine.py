"""1 - cos to the target: scale-free."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss


class Cosine(Loss):
    name = "cosine"

    def __call__(self, b: Batch) -> torch.Tensor:
        return (1 - F.cosine_similarity(b.student, b.target[b.group], dim=-1)).mean()
