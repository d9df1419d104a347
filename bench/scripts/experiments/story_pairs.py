"""Can a cosine tell one story in two languages from two stories of one topic? Pairs of SIB-200 dev items: the same
item in two random languages (3,000 pairs: the duplicates), and two items of one topic, half in one language and half
in two (8,000: what must never fold); beside them the demo feed's 276 pairs of 24 short stories (no two the same
story). For each way of scoring a pair: the duplicates' median and 5th percentile, and the share folded (recall) at
the highest score two stories of one topic reach and at their 99.9th percentile, with the demo feed's pairs folded
there (bench/experiments/duplicates.md, "What separates one story from two").

Ways of scoring: each model's cosine (a model folder, a shipped name, teacher:NAME); ``--pair SEMANTIC RELEVANCE``
adds the mean and the minimum of the two models' cosines, the semantic vectors centred on their language's mean (SIB
train items, ``centred``), and margin scores (Artetxe and Schwenk's bitext mining: the cosine less, or over, the mean
cosine of each side's k nearest documents in a feed shaped as ``eval --duplicates``'s).

Usage: python bench/scripts/experiments/story_pairs.py --data ../shared/data semantic teacher:use-multilingual-v3
           [--pair semantic relevance]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from importlib import resources

import numpy as np

from edge_ranker.datasets.topics import load_topics
from edge_ranker.evaluate.duplicates import story_feed
from edge_ranker.evaluate.encoders import resolve_encoder
from edge_ranker.paths import cache_root

Pairs = list[tuple[int, str, int, str]]


def pairs(topics: list[str], langs: list[str], rng: np.random.Generator) -> tuple[Pairs, Pairs]:
    """(item, language, item, language): the same item in two languages, then two items of one topic."""
    n = len(topics)
    same = []
    for _ in range(3000):
        i = int(rng.integers(n))
        a, b = rng.choice(langs, 2, replace=False)
        same.append((i, str(a), i, str(b)))
    other: Pairs = []
    while len(other) < 8000:
        i, j = (int(x) for x in rng.integers(n, size=2))
        if i == j or topics[i] != topics[j]:
            continue
        a, b = rng.choice(langs, 2, replace=False) if len(other) % 2 else (rng.choice(langs),) * 2
        other.append((i, str(a), j, str(b)))
    return same, other


def report(name: str, score: Callable[[Pairs], np.ndarray], same: Pairs, other: Pairs, feed: np.ndarray) -> None:
    """One row: the duplicates' scores, and recall with the demo feed's false folds at two thresholds."""
    p, q = score(same), score(other)
    cells = []
    for t in (q.max(), np.percentile(q, 99.9)):
        cells.append(f"{t:.3f}: {np.mean(p >= t):.3f} / {int((feed >= t).sum())}")
    print(f"| {name} | {np.median(p):.3f} / {np.percentile(p, 5):.3f} | {' | '.join(cells)} |")


def upper(m: np.ndarray) -> np.ndarray:
    return m[np.triu_indices(len(m), 1)]


def margins(vectors: np.ndarray, k: int, how: str) -> np.ndarray:
    """Each pair's cosine less (``diff``) or over (``ratio``) the mean of both sides' k nearest cosines."""
    c = vectors @ vectors.T
    np.fill_diagonal(c, -np.inf)
    near = -np.sort(-c, axis=1)[:, : min(k, len(c) - 1)].mean(1)
    np.fill_diagonal(c, 1.0)
    mean = (near[:, None] + near[None, :]) / 2
    return c - mean if how == "diff" else c / mean


def margin_rows(sem: dict[str, np.ndarray], topics: list[str], langs: list[str], feed: np.ndarray, seed: int) -> None:
    """Margin scores within 100 feeds shaped as the benchmark's: recall at the 99.9th percentile of one topic's
    different stories, and the demo feed's pairs above it."""
    rng = np.random.default_rng(seed)
    found: dict[tuple[str, int], tuple[list[float], list[float]]] = {}
    for _ in range(100):
        docs = story_feed(rng, len(topics), langs)
        v = np.stack([sem[lang][s] for s, lang in docs])
        iu = np.triu_indices(len(docs), 1)
        same = np.array([docs[i][0] == docs[j][0] for i, j in zip(*iu)])
        topic = np.array([topics[docs[i][0]] == topics[docs[j][0]] for i, j in zip(*iu)])
        for how, k in [("cos", 1)] + [(h, k) for h in ("diff", "ratio") for k in (2, 4, 8)]:
            s = (v @ v.T if how == "cos" else margins(v, k, how))[iu]
            got = found.setdefault((how, k), ([], []))
            got[0].extend(s[same])
            got[1].extend(s[~same & topic])
    for (how, k), (p, q) in found.items():
        t = np.percentile(q, 99.9)
        traps = upper(feed @ feed.T) if how == "cos" else upper(margins(feed, k, how))
        print(
            f"| in feeds: {how}{'' if how == 'cos' else f', k={k}'} | {np.median(p):.3f} | | "
            f"{t:.3f}: {np.mean(np.array(p) >= t):.3f} / {int((traps >= t).sum())} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", default=["semantic"])
    ap.add_argument("--pair", nargs=2, metavar=("SEMANTIC", "RELEVANCE"))
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    dev = load_topics(a.data, "dev")
    langs = sorted(dev.texts)
    same, other = pairs(dev.topics, langs, np.random.default_rng(a.seed))
    rows = [json.loads(line) for line in resources.files("edge_ranker.demo").joinpath("feed.jsonl").open()]
    feed, feed_langs = [r["text"] for r in rows], [r["id"].split("-")[1] for r in rows]  # ids: topic-language-n
    print(
        "| score | duplicates: median / 5th pct | at the max of one topic's stories: recall / demo pairs "
        "| at their 99.9th pct |\n|---|---|---|---|"
    )
    vectors: dict[str, dict[str, np.ndarray]] = {}
    encoders = {name: resolve_encoder(name, cache_root(None)) for name in dict.fromkeys([*a.models, *(a.pair or [])])}
    for name, enc in encoders.items():
        vectors[name] = {lang: np.asarray(enc.encode(dev.texts[lang], role="passage")) for lang in langs}
        vectors[name] = {lang: v / np.linalg.norm(v, axis=1, keepdims=True) for lang, v in vectors[name].items()}
        f = np.asarray(enc.encode(feed, role="passage"))
        vectors[name]["feed"] = f / np.linalg.norm(f, axis=1, keepdims=True)

    def cosine(v: dict[str, np.ndarray]) -> Callable[[Pairs], np.ndarray]:
        return lambda ps: np.array([v[a][i] @ v[b][j] for i, a, j, b in ps])

    for name in a.models:
        report(name, cosine(vectors[name]), same, other, upper(vectors[name]["feed"] @ vectors[name]["feed"].T))
    if a.pair:
        s, r = (vectors[m] for m in a.pair)
        fs, fr = upper(s["feed"] @ s["feed"].T), upper(r["feed"] @ r["feed"].T)
        report("mean of the two", lambda ps: (cosine(s)(ps) + cosine(r)(ps)) / 2, same, other, (fs + fr) / 2)
        report("min of the two", lambda ps: np.minimum(cosine(s)(ps), cosine(r)(ps)), same, other, np.minimum(fs, fr))
        train = load_topics(a.data, "train")
        mean = {
            lang: np.asarray(encoders[a.pair[0]].encode(train.texts[lang], role="passage")).mean(0) for lang in langs
        }
        centred = {lang: s[lang] - mean[lang] for lang in langs}
        centred = {lang: v / np.linalg.norm(v, axis=1, keepdims=True) for lang, v in centred.items()}
        fc = s["feed"] - np.stack([mean[lang] for lang in feed_langs])
        fc /= np.linalg.norm(fc, axis=1, keepdims=True)
        report("semantic, centred per language", cosine(centred), same, other, upper(fc @ fc.T))
        margin_rows({lang: s[lang] for lang in langs}, dev.topics, langs, s["feed"], a.seed)


if __name__ == "__main__":
    main()
