"""The multilingual STS benchmark: English STSb, stsb-multi-mt (de es fr it nl pl pt ru) and STSb-TR, all
row-aligned translations of the same STSb split, so en-xx pairs take s1 in English and s2 in xx."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError

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
