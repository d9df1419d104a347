"""The ``Loss`` every distillation loss subclasses, and the registry its subclasses fill."""

from __future__ import annotations

from typing import ClassVar

import torch
import torch.nn.functional as F

from edge_ranker.distill.batch import Batch
from edge_ranker.distill.config import TEMPERATURE

LOSSES: dict[str, type[Loss]] = {}


class Loss:
    """A loss over one ``Batch``: ``needs`` names the optional batch fields it cannot do without."""

    name: ClassVar[str]
    needs: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        LOSSES[cls.name] = cls

    def __init__(self, temperature: float = TEMPERATURE) -> None:
        self.temperature = temperature  # of the in-batch softmax; the per-row losses ignore it

    def __call__(self, b: Batch) -> torch.Tensor:
        raise NotImplementedError


def row_cosines(b: Batch) -> tuple[torch.Tensor, torch.Tensor]:
    """The student rows' cosines with each other, and their targets' (the full teacher's where the batch has it):
    the geometry that ranking reads, where every text is student-encoded."""
    sn = F.normalize(b.student, dim=-1)
    tn = F.normalize(b.target if b.teacher is None else b.teacher, dim=-1)[b.group]
    return sn @ sn.T, tn @ tn.T


def kl(student_logits: torch.Tensor, teacher_logits: torch.Tensor) -> torch.Tensor:
    """KL(teacher || student) between row-wise softmax distributions, averaged over rows."""
    return F.kl_div(
        F.log_softmax(student_logits, -1), F.log_softmax(teacher_logits, -1), log_target=True, reduction="batchmean"
    )
