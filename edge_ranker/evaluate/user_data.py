"""The check after training on the user's own pairs: the held-out slice of each parallel corpus (pairs training
never saw, ``edge_ranker.datasets.user.split_held_out``), scored for the teacher and the student side by side.
(``edge_ranker.datasets.held_out`` is another thing: the project's evaluation texts, kept out of its recipes.)

- translation retrieval accuracy, both directions: each sentence finds its translation among all the slice's
  (``evaluate.translation.retrieval_accuracy``, LASER's protocol), the proof that the student serves each language;
- agreement: Spearman of the student's cosines with the teacher's over seeded random pairs of the slice's
  sentences, an STS-like check that needs no labels (any teacher has similarities).
"""

from __future__ import annotations

import numpy as np

from edge_ranker.datasets.user import read_parallel, split_held_out
from edge_ranker.evaluate.metrics import spearman, unit_rows
from edge_ranker.evaluate.translation import both_ways

# The student should keep this share of its teacher's translation retrieval accuracy to be worth exporting.
KEEP = 0.8
AGREEMENT_PAIRS = 5000


def evaluate_held_out(
    student, teacher, parallel: list[str], size: int, seed: int = 0, role: str = "passage"
) -> dict[str, object]:
    """Per corpus: both models' accuracy each way, the student's agreement with the teacher, and a verdict."""
    rng = np.random.default_rng(seed)
    corpora: dict[str, dict] = {}
    kept: list[float] = []
    read = [read_parallel(spec) for spec in parallel]
    for spec, corpus, held in zip(parallel, read, split_held_out(read, size, seed)[1]):
        if len(held) < 2:
            corpora[spec] = {"pairs": len(held), "note": "too few pairs to hold any out"}
            continue
        xs, ys = [x for x, _ in held], [y for _, y in held]
        row: dict[str, object] = {"pairs": len(held)}
        cosines = {}
        i, j = rng.integers(0, len(held), (2, AGREEMENT_PAIRS))
        for name, model in (("teacher", teacher), ("student", student)):
            vx, vy = model.encode(xs, role=role), model.encode(ys, role=role)
            row[name] = both_ways(corpus, vx, vy, xs, ys)
            both = unit_rows(np.concatenate([vx, vy]))
            cosines[name] = (both[i] * both[len(held) + j]).sum(1)  # random cross-language pairs
        share = _mean(row["student"]) / max(_mean(row["teacher"]), 1e-9)
        row["kept"] = round(share, 3)
        row["agreement"] = round(spearman(cosines["teacher"], cosines["student"]), 3)
        kept.append(share)
        corpora[spec] = row
    if not kept:
        return {"corpora": corpora, "verdict": "no held-out pairs to score: give more pairs or a larger --held-out"}
    worst = min(kept)
    verdict = (
        f"the student keeps {worst:.0%} or more of its teacher's translation retrieval on every held-out slice"
        if worst >= KEEP
        else f"the student keeps only {worst:.0%} of its teacher's translation retrieval on one held-out slice "
        f"(aim {KEEP:.0%}): more pairs, more epochs or a vocabulary built on more of that language's text would help"
    )
    return {"corpora": corpora, "verdict": verdict}


def _mean(accuracies: object) -> float:
    assert isinstance(accuracies, dict)
    return float(np.mean(list(accuracies.values())))
