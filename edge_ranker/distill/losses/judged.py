"""InfoNCE of each query row towards the target of the passage judged relevant to it (the retrieval sets' training
judgments; IBKD's labelled stage folded into the one training run). The only loss that reads labels rather than
the teacher."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss


class Judged(Loss):
    """Over all in-batch targets but the row's own: a query's own target is near its passage's and is no negative."""

    name = "judged"
    needs = ("positive",)

    def __call__(self, b: Batch) -> torch.Tensor:
        assert b.positive is not None  # Combined checks ``needs``
        rows = b.positive >= 0
        if not bool(rows.any()):
            return b.student.new_zeros(())
        logits = F.normalize(b.student[rows], dim=-1) @ F.normalize(b.target, dim=-1).T / self.temperature
        own = F.one_hot(b.group[rows], len(b.target)).bool()
        return F.cross_entropy(logits.masked_fill(own, -1e4), b.positive[rows])
