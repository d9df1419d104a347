"""The relational loss at a softer temperature: at 0.05 a row's distribution over the batch is nearly one-hot on
its own target, so its topical neighbours (same subject, not a paraphrase) carry no weight; at 0.2 they do."""

from __future__ import annotations

from edge_ranker.distill.losses.relational import Relational

SOFT_TEMPERATURE = 0.2


class SoftRelational(Relational):
    """Built at the recipe's in-batch temperature like every loss, it runs at that or 0.2, whichever is higher."""

    name = "soft_relational"

    def __init__(self, temperature: float = SOFT_TEMPERATURE) -> None:
        super().__init__(max(temperature, SOFT_TEMPERATURE))
