"""Evaluation bitexts: LASER's Tatoeba test and FLORES-200 devtest, each language row-aligned with English, and
the file codes of the 10 languages that every parallel corpus here is named by."""

from __future__ import annotations

from pathlib import Path

from edge_ranker.datasets.sts import STS_LANGS
from edge_ranker.errors import EdgeRankerError

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
