"""Each translation's row towards the student's own row of its group's source (the text the teacher embedded): the
student aligns its languages with each other, not only each with the teacher's target. Reimers and Gurevych's
multilingual distillation regresses both to the teacher; this term adds the student-to-student pull."""

from __future__ import annotations

import torch

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss


class Anchor(Loss):
    name = "anchor"
    needs = ("source",)

    def __call__(self, b: Batch) -> torch.Tensor:
        assert b.source is not None  # Combined checks ``needs``
        rows = b.source != torch.arange(len(b.student), device=b.source.device)  # every text but a group's source
        if not bool(rows.any()):
            return b.student.new_zeros(())
        return ((b.student[rows] - b.student[b.source[rows]]) ** 2).sum(-1).mean()
