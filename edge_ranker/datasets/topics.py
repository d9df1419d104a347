"""SIB-200: FLORES-200 sentences labelled with one of 7 topics, parallel across the 10 languages. Train and dev
splits only: the test split is kept out of the project."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from edge_ranker.errors import EdgeRankerError

SIB_LANGS = {
    "en": "eng_Latn",
    "de": "deu_Latn",
    "fr": "fra_Latn",
    "it": "ita_Latn",
    "es": "spa_Latn",
    "pl": "pol_Latn",
    "pt": "por_Latn",
    "nl": "nld_Latn",
    "ru": "rus_Cyrl",
    "tr": "tur_Latn",
}


@dataclass(frozen=True)
class Topics:
    """One SIB-200 split: per language the texts in ``index_id`` order, and each item's topic."""

    texts: dict[str, list[str]]
    topics: list[str]


def load_topics(data_root: str | Path, split: str = "dev", langs: list[str] | None = None) -> Topics:
    """The items present in every language, aligned by ``index_id``; the languages default to those on disk."""
    if split == "test":
        raise EdgeRankerError("SIB-200's test split is kept out of this project; use dev or train")
    folder = Path(data_root) / "topics" / "sib200"
    langs = langs or [lang for lang, code in SIB_LANGS.items() if (folder / code / f"{split}.tsv").is_file()]
    if not langs:
        raise EdgeRankerError(f"no SIB-200 {split} files under {folder} (see the data README)")
    rows: dict[str, dict[str, tuple[str, str]]] = {}
    for lang in langs:
        path = folder / SIB_LANGS[lang] / f"{split}.tsv"
        if not path.is_file():
            raise EdgeRankerError(f"SIB-200 file not found: {path} (see the data README)")
        with open(path, encoding="utf-8", newline="") as fh:
            rows[lang] = {r["index_id"]: (r["category"], r["text"]) for r in csv.DictReader(fh, delimiter="\t")}
    ids = sorted(set.intersection(*(set(r) for r in rows.values())), key=int)
    first = next(iter(rows.values()))
    return Topics({lang: [r[i][1] for i in ids] for lang, r in rows.items()}, [first[i][0] for i in ids])


def as_articles(topics: Topics, sentences: int) -> Topics:
    """Article-length items: each topic's items joined ``sentences`` at a time in ``index_id`` order, the same
    sentences in every language (a leftover shorter group is dropped). A feed of news articles, not of sentences,
    is what a model reading only its first ``max_length`` tokens gets wrong."""
    if sentences < 1:
        raise EdgeRankerError(f"sentences per item must be 1 or more, got {sentences}")
    by_topic: dict[str, list[int]] = {}
    for i, topic in enumerate(topics.topics):
        by_topic.setdefault(topic, []).append(i)
    groups = [
        (topic, items[j : j + sentences])
        for topic, items in sorted(by_topic.items())
        for j in range(0, len(items) - sentences + 1, sentences)
    ]
    return Topics(
        {lang: [" ".join(texts[i] for i in g) for _, g in groups] for lang, texts in topics.texts.items()},
        [topic for topic, _ in groups],
    )
