"""KL between how each student row and its own target see all the batch's targets (ReAugKD/EmbedDistill)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.losses.base import Loss, kl


class Relational(Loss):
    """``Batch.lexical``, when there, is added to the teacher's cosines in units of each row's cosine spread, so
    the teacher side ranks as the runtime does, cosine plus BM25."""

    name = "relational"

    def __call__(self, b: Batch) -> torch.Tensor:
        sn, tn = F.normalize(b.student, dim=-1), F.normalize(b.target, dim=-1)
        student_logits = sn @ tn.T / self.temperature  # (rows, columns): how the student row sees all targets
        fn = tn if b.teacher is None else F.normalize(b.teacher, dim=-1)
        if b.lexical is None:
            teacher_logits = fn[b.group] @ fn.T / self.temperature  # how its own target sees all targets
        else:
            sim = fn @ fn.T
            teacher_logits = (sim + sim.std(1, keepdim=True) * b.lexical.to(sim))[b.group] / self.temperature
        return kl(student_logits, teacher_logits)
