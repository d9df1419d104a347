"""Which text should the semantic recipe fit its 512 -> 128 PCA on? USE-multilingual-v3 reduced by a PCA fitted on
each training sample the recipe has (Tatoeba English sources, Leipzig Wikipedia sentences, news sentences, every
English source, every target), scored on STS dev and on the personalised feed (plain rule: nearest like minus
nearest dislike; SIB-200 dev, and the train split's items as a second set of users) beside USE itself.
``python bench/scripts/experiments/pca_fit_samples.py --data DIR`` (needs the teachers and data extras; about 15
minutes of teacher time on 2 cores from an empty cache)."""

from __future__ import annotations

import argparse

import numpy as np

from edge_ranker.datasets.held_out import eval_sentences
from edge_ranker.datasets.topics import load_topics
from edge_ranker.datasets.training import (
    bible_groups,
    mono_groups,
    news_groups,
    sts_train_groups,
    tatoeba_pairs,
)
from edge_ranker.distill.recipes import RECIPES
from edge_ranker.evaluate.personal import SETTINGS, ndcg_at, simulate_users
from edge_ranker.evaluate.sts import evaluate_sts
from edge_ranker.modeling.pca import PCAMap, fit_pca
from edge_ranker.paths import cache_root, data_root
from edge_ranker.teachers import CachedTeacher, load_teacher


def plain_feed(vectors: dict[str, np.ndarray], topics, users: int = 200) -> list[float]:
    """nDCG@10 per setting: each candidate scored by its nearest like minus its nearest dislike."""
    unit = {lang: v / np.linalg.norm(v, axis=1, keepdims=True) for lang, v in vectors.items()}
    out = []
    for setting in SETTINGS:
        scores = []
        for u in simulate_users(topics, setting, users, 0):
            like, dislike, cand = (
                np.stack([unit[lang][i] for i, lang in side]) for side in (u.likes, u.dislikes, u.candidates)
            )
            order = np.argsort(-((cand @ like.T).max(1) - (cand @ dislike.T).max(1)), kind="stable")
            scores.append(ndcg_at(np.array([topics.topics[u.candidates[i][0]] == u.liked for i in order], float)))
        out.append(round(float(np.mean(scores)), 3))
    return out


class _Reduced:
    def __init__(self, encode, pca: PCAMap) -> None:
        self.encode_raw, self.pca = encode, pca

    def encode(self, texts, role=None) -> np.ndarray:
        return self.pca.transform(self.encode_raw(list(texts)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="the data folder (default $EDGE_RANKER_DATA)")
    parser.add_argument("--cache", help="teacher cache (default $EDGE_RANKER_CACHE or the user cache)")
    a = parser.parse_args()
    root, recipe = data_root(a.data), RECIPES["semantic"]
    teacher = CachedTeacher(load_teacher(recipe.teacher), cache_root(a.cache))

    def encode(texts: list[str]) -> np.ndarray:
        return np.asarray(teacher.encode(texts, role="passage", show_progress=False), np.float32)

    pairs = tatoeba_pairs(root, recipe.langs, None, seed=0, held=eval_sentences(root))
    tatoeba = encode(sorted({p.source for p in pairs}))
    wiki = encode([g[0] for g in mono_groups(root, recipe.mono_per_lang, 0)])
    news = encode([g[0] for g in news_groups(root, recipe.langs)])
    rest = encode(
        [g[0] for g in bible_groups(recipe.langs, recipe.bible_verses, 0) + sts_train_groups(root, recipe.langs)]
    )
    samples = {
        "Tatoeba English sources (the recipe)": tatoeba,
        "Leipzig Wikipedia sentences": wiki,
        "news sentences": news,
        "every English source": np.concatenate([tatoeba, wiki[: len(wiki) // 5], news, rest]),
        "every training target": np.concatenate([tatoeba, wiki, news, rest]),
    }
    splits = {s: load_topics(root, s) for s in ("dev", "train")}
    vectors = {s: {lang: encode(texts) for lang, texts in t.texts.items()} for s, t in splits.items()}
    print("USE-multilingual-v3", {s: plain_feed(vectors[s], splits[s]) for s in splits})
    for name, sample in samples.items():
        pca = fit_pca(sample, recipe.pca_dim, seed=0)
        sts = evaluate_sts(_Reduced(encode, pca), root, split="dev")["avg"]
        feeds = {s: plain_feed({k: pca.transform(v) for k, v in vectors[s].items()}, splits[s]) for s in splits}
        print(f"{name}: rows {len(sample)}, STS dev {sts:.2f}, feed {feeds}")


if __name__ == "__main__":
    main()
