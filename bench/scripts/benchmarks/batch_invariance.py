"""The largest difference, per coordinate, between a text's vector in the default batch and in batches of 1, 3, 7
and 64, for each shipped model, without a role and in each of its roles: the README's figure for "whatever else
is in its batch".

``python bench/scripts/benchmarks/batch_invariance.py``: 200 texts of 1 to 400 words drawn (seed 0) from the semantic
model's vocabulary, whole-word pieces only.
"""

from __future__ import annotations

import random

import numpy as np

from edge_ranker import Encoder


def main() -> None:
    rng = random.Random(0)
    vocab = Encoder.load("semantic").tokenizer.get_vocab()
    words = sorted(w for w in vocab if not w.startswith("##") and not (w.startswith("[") and w.endswith("]")))
    texts = [" ".join(rng.choices(words, k=rng.randint(1, 400))) for _ in range(200)]
    for name in ("semantic", "relevance"):
        encoder = Encoder.load(name)
        worst = 0.0
        for role in [None, *encoder.roles]:
            base = encoder.encode(texts, role=role)
            for size in (1, 3, 7, 64):
                worst = max(worst, float(np.abs(encoder.encode(texts, role=role, batch_size=size) - base).max()))
        print(f"{name} ({encoder.dim}-d): at most {worst:.2g} per coordinate")


if __name__ == "__main__":
    main()
