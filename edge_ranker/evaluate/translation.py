"""Translation retrieval accuracy (bitext search) on LASER's Tatoeba test and FLORES-200 devtest.

For each language xx and each direction (xx->en, en->xx), every source sentence retrieves its nearest
target by cosine among all the targets; it counts as right when the retrieved sentence is the aligned one,
compared by text, so a target that occurs twice (Tatoeba repeats some short English sentences) is not an
error for the row whose gold text it equals. This is LASER's Tatoeba protocol (accuracy = 100 - its error
rate) and shows whether one student really serves every language, which STS alone does not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from edge_ranker.datasets.bitext import TRANSLATION_LANGS, load_bitext
from edge_ranker.datasets.user import ParallelCorpus
from edge_ranker.evaluate.metrics import unit_rows


def retrieval_accuracy(src: np.ndarray, tgt: np.ndarray, tgt_texts: list[str], block: int = 1024) -> float:
    """100 x the share of rows i whose nearest target (cosine; first on ties) has row i's target text. Blocks of
    rows keep the similarity matrix small (50,000 pairs would need 10 GB at once)."""
    s, t = unit_rows(src), unit_rows(tgt)
    nearest = np.concatenate([(s[i : i + block] @ t.T).argmax(1) for i in range(0, len(s), block)])
    return 100.0 * float(np.mean([tgt_texts[j] == tgt_texts[i] for i, j in enumerate(nearest)]))


def evaluate_translation(encoder, data_root: str | Path, name: str, langs: list[str] | None = None) -> dict[str, float]:
    """Accuracy per direction ("de-en", "en-de") and their average ("avg"); both sides in passage role."""
    out: dict[str, float] = {}
    for lang in langs or TRANSLATION_LANGS:
        xx, en = load_bitext(data_root, name, lang)
        e = encoder.encode(xx + en, role="passage")
        ex, ee = e[: len(xx)], e[len(xx) :]
        out[f"{lang}-en"] = retrieval_accuracy(ex, ee, en)
        out[f"en-{lang}"] = retrieval_accuracy(ee, ex, xx)
    out["avg"] = float(np.mean(list(out.values())))
    return out


def evaluate_bitext(encoder, corpus: ParallelCorpus) -> dict[str, float]:
    """Translation retrieval both ways over every pair of one of the user's bitexts (``eval --bitext``): a test set
    of one's own, e.g. the pairs of an application the student never saw."""
    xs, ys = [x for x, _ in corpus.pairs], [y for _, y in corpus.pairs]
    vx, vy = encoder.encode(xs, role="passage"), encoder.encode(ys, role="passage")
    return both_ways(corpus, vx, vy, xs, ys) | {"pairs": len(corpus.pairs)}


def both_ways(corpus: ParallelCorpus, vx: np.ndarray, vy: np.ndarray, xs: list[str], ys: list[str]) -> dict[str, float]:
    """Retrieval accuracy from the corpus's first language to its pivot and back, keyed ``xx->yy`` and ``yy->xx``."""
    return {
        f"{corpus.src}->{corpus.tgt}": retrieval_accuracy(vx, vy, ys),
        f"{corpus.tgt}->{corpus.src}": retrieval_accuracy(vy, vx, xs),
    }
