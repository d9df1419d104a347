"""InfoNCE of each student row against all in-batch targets, its own the positive (IBKD-style)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss


class Contrastive(Loss):
    name = "contrastive"

    def __call__(self, b: Batch) -> torch.Tensor:
        logits = F.normalize(b.student, dim=-1) @ F.normalize(b.target, dim=-1).T / self.temperature
        return F.cross_entropy(logits, b.group)
