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

from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.metrics import unit_rows
from edge_ranker.evaluate.sts import STS_LANGS

TRANSLATION_LANGS = [lang for lang in STS_LANGS if lang != "en"]  # each paired with English
TRANSLATION_SETS = ("tatoeba", "flores")
FILE_CODES = {  # ISO 639-1 -> (LASER Tatoeba file code, FLORES-200 file stem)
    "en": ("eng", "eng_Latn"),
    "de": ("deu", "deu_Latn"),
    "fr": ("fra", "fra_Latn"),
    "it": ("ita", "ita_Latn"),
    "es": ("spa", "spa_Latn"),
    "pl": ("pol", "pol_Latn"),
    "pt": ("por", "por_Latn"),
    "nl": ("nld", "nld_Latn"),
    "ru": ("rus", "rus_Cyrl"),
    "tr": ("tur", "tur_Latn"),
    "zh": ("cmn", "zho_Hans"),
}


def _aligned_lines(path: Path) -> list[str]:
    """Every line, empty ones included (rows must stay aligned); bad bytes become U+FFFD, not a crash."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    return [line.strip() for line in text.rstrip("\n").split("\n")]


def load_bitext(data_root: str | Path, name: str, lang: str) -> tuple[list[str], list[str]]:
    """Row-aligned (xx sentences, English sentences) of ``name`` (tatoeba | flores) for ``lang``."""
    if name not in TRANSLATION_SETS:
        raise EdgeRankerError(f"unknown translation set {name!r}; known: {', '.join(TRANSLATION_SETS)}")
    if lang not in FILE_CODES or lang == "en":
        raise EdgeRankerError(f"no {name} bitext for {lang!r}; known: {sorted(set(FILE_CODES) - {'en'})}")
    laser, flores = FILE_CODES[lang]
    if name == "tatoeba":
        folder = Path(data_root) / "parallel" / "laser_tatoeba_v1"
        src, tgt = folder / f"tatoeba.{laser}-eng.{laser}", folder / f"tatoeba.{laser}-eng.eng"
    else:
        folder = Path(data_root) / "parallel" / "flores200_devtest"
        src, tgt = folder / f"{flores}.devtest", folder / f"{FILE_CODES['en'][1]}.devtest"
    for f in (src, tgt):
        if not f.is_file():
            raise EdgeRankerError(f"{name} file not found: {f} (set EDGE_RANKER_DATA or --data?)")
    a, b = _aligned_lines(src), _aligned_lines(tgt)
    if len(a) != len(b) or not a:
        raise EdgeRankerError(f"{src} and {tgt} are not row-aligned ({len(a)} vs {len(b)} lines)")
    return a, b


def retrieval_accuracy(src: np.ndarray, tgt: np.ndarray, tgt_texts: list[str]) -> float:
    """100 x the share of rows i whose nearest target (cosine; first on ties) has row i's target text."""
    nearest = (unit_rows(src) @ unit_rows(tgt).T).argmax(1)
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
