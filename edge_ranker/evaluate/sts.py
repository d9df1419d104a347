"""Multilingual STS benchmark: Spearman x100 of cosine vs gold, per language and per cross-lingual en-xx pair.

Files (under the data root): English STSb, stsb-multi-mt (de es fr it nl pl pt ru) and STSb-TR, all
row-aligned translations of the same STSb split, so en-xx pairs take s1 in English and s2 in xx.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.metrics import spearman, unit_rows

STS_LANGS = ["en", "de", "fr", "it", "es", "pl", "pt", "nl", "ru", "tr"]


def load_sts(data_root: str | Path, lang: str, split: str = "test") -> tuple[list[str], list[str], np.ndarray]:
    root = Path(data_root) / "sts"
    if lang == "en":
        path = root / "stsbenchmark_en" / f"sts-{split}.csv"
        rows = [r for r in csv.reader(path.open(encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE)]
        rows = [(r[5], r[6], float(r[4])) for r in rows if len(r) >= 7]
    elif lang == "tr":
        path = root / "stsb-tr" / f"stsb_tr_{split}.tsv"
        reader = csv.reader(path.open(encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        rows = [(r[5], r[6], float(r[4])) for r in reader if len(r) >= 7]
    else:
        path = root / "stsb-multi-mt" / f"stsb-{lang}-{split}.csv"
        rows = [(r[0], r[1], float(r[2])) for r in csv.reader(path.open(encoding="utf-8")) if len(r) >= 3]
    if not rows:
        raise EdgeRankerError(f"no STS rows in {path}")
    a, b, s = zip(*rows)
    return list(a), list(b), np.array(s, dtype=np.float64)


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
