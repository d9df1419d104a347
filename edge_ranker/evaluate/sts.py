"""Multilingual STS benchmark: Spearman x100 of cosine vs gold, per language and per cross-lingual en-xx pair.

Files (under the data root): English STSb, stsb-multi-mt (de es fr it nl pl pt ru) and STSb-TR, all
row-aligned translations of the same STSb split, so en-xx pairs take s1 in English and s2 in xx.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from edge_ranker.datasets.sts import STS_LANGS, load_sts
from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.metrics import spearman, unit_rows


def row_cosines(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Cosine of each row of ``x`` with the same row of ``y`` (zero rows score 0, not NaN)."""
    return (unit_rows(x) * unit_rows(y)).sum(1)


def evaluate_sts(
    encoder, data_root: str | Path, langs: list[str] | None = None, split: str = "test", cross_lingual: bool = True
) -> dict[str, float]:
    """Spearman x100 per language ("de-de"), per en-xx pair ("en-de") and their average ("avg")."""
    langs = langs or STS_LANGS
    data = {lang: load_sts(data_root, lang, split) for lang in set(langs) | ({"en"} if cross_lingual else set())}
    emb: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for lang, (a, b, _) in data.items():
        e = encoder.encode(a + b, role="passage")
        emb[lang] = (e[: len(a)], e[len(a) :])
    out: dict[str, float] = {}
    for lang in langs:
        out[f"{lang}-{lang}"] = 100 * spearman(row_cosines(*emb[lang]), data[lang][2])
    if cross_lingual:
        gold = data["en"][2]
        for lang in langs:
            if lang == "en":
                continue
            if len(data[lang][0]) != len(gold):
                raise EdgeRankerError(f"STS {lang} is not row-aligned with English")
            out[f"en-{lang}"] = 100 * spearman(row_cosines(emb["en"][0], emb[lang][1]), gold)
    out["avg"] = float(np.mean(list(out.values())))
    return out
