"""Mean squared error between the student's row-to-row cosines and the teacher's, in units of the teacher's
cosine variance (similarity-preserving distillation, Tung and Mori 2019). At temperature 0.05 the in-batch
losses only see each row's nearest columns; this one also trains the graded mid-range similarities (same topic,
not a paraphrase) that ranking a feed by likes and dislikes reads."""

from __future__ import annotations

import torch

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss, row_cosines


class Graded(Loss):
    name = "graded"

    def __call__(self, b: Batch) -> torch.Tensor:
        s = b.student
        if len(s) < 3:
            return s.new_zeros(())
        pairs = ~torch.eye(len(s), dtype=torch.bool, device=s.device)  # a row's cosine with itself is always 1
        student, teacher = (m[pairs] for m in row_cosines(b))
        return (student - teacher).pow(2).mean() / teacher.var().clamp_min(1e-6)
