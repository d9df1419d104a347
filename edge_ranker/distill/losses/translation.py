"""InfoNCE among the student's own rows: a text's other-language versions (its group's other rows) are its
positives, every other group's texts its negatives (LaBSE's translation ranking, student against student).

The teacher's targets alone do not tell one story in two languages from two stories of one topic: USE puts a FLORES
sentence and its translation at a median cosine of 0.72 and two SIB-200 stories of one topic up to 0.52, and the
student, at 0.69 and 0.60, overlaps them. Folding duplicates reads that gap (spec/rules/duplicates.md)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss


class Translation(Loss):
    name = "translation"

    def __call__(self, b: Batch) -> torch.Tensor:
        sn = F.normalize(b.student, dim=-1)
        own = torch.eye(len(sn), dtype=torch.bool, device=sn.device)
        logp = (sn @ sn.T / self.temperature).masked_fill(own, float("-inf")).log_softmax(-1)
        positive = (b.group[:, None] == b.group[None, :]) & ~own
        rows = positive.any(1)
        if not rows.any():  # a batch of single texts: nothing to align
            return sn.sum() * 0.0
        mean_logp = logp.masked_fill(~positive, 0.0).sum(1) / positive.sum(1).clamp(min=1)
        return -mean_logp[rows].mean()
