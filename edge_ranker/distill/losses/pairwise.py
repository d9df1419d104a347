"""KL between the student's own row-to-row similarity distribution and the teacher's (RKD / EmbedDistill score
matching). The other losses compare student rows with teacher targets; this one trains the geometry that ranking
uses, where queries, documents and translations are all student-encoded."""

from __future__ import annotations

import torch

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss, kl, row_cosines


class Pairwise(Loss):
    name = "pairwise"

    def __call__(self, b: Batch) -> torch.Tensor:
        s = b.student
        if len(s) < 2:
            return s.new_zeros(())
        student, teacher = row_cosines(b)
        self_pair = torch.eye(len(s), dtype=torch.bool, device=s.device)  # a row's similarity to itself says nothing
        student_logits = (student / self.temperature).masked_fill(self_pair, -1e4)
        teacher_logits = (teacher / self.temperature).masked_fill(self_pair, -1e4)
        return kl(student_logits, teacher_logits)
