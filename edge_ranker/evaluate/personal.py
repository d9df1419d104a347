"""The product's own job, measured: a person's feed ranked by what they liked and disliked.

SIB-200 (FLORES-200 sentences with one of 7 topics, parallel across the 10 languages) becomes simulated users:
each likes 5 items of one topic and dislikes 3 of another, then 60 other items are ranked; the liked topic's
items are the relevant ones. Settings: ``mono`` (all English), ``cross`` (history in one language, candidates in
another) and ``mixed`` (every item in a random one of the 10). Metrics: nDCG@10 and the share of the disliked
topic in the top 10. Runtime model folders are scored through ``Ranker.feedback`` / ``Ranker.rank`` (the path
an app runs) and, like every encoder, with one plain rule (max cosine to the likes minus max cosine to the
dislikes), which separates the model from the interest logic; ``random`` is the floor.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edge_ranker.datasets.topics import Topics, as_articles, load_topics
from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.encoders import runtime_model

SETTINGS = ("mono", "cross", "mixed")
USERS = 200  # simulated users per setting
LIKES, DISLIKES, CANDIDATES, TOP = 5, 3, 60, 10


@dataclass(frozen=True)
class User:
    """A simulated user: item indices liked, disliked and to rank, the language of each, the liked topic."""

    likes: list[tuple[int, str]]
    dislikes: list[tuple[int, str]]
    candidates: list[tuple[int, str]]
    liked: str
    disliked: str


def simulate_users(topics: Topics, setting: str, n: int, seed: int = 0) -> list[User]:
    """``n`` users, seeded; a liked topic needs items left to find after the likes."""
    if setting not in SETTINGS:
        raise EdgeRankerError(f"setting must be one of {SETTINGS}, got {setting!r}")
    rng = np.random.default_rng(seed)
    langs = list(topics.texts)
    by_topic: dict[str, list[int]] = {}
    for i, t in enumerate(topics.topics):
        by_topic.setdefault(t, []).append(i)
    likable = sorted(t for t, items in by_topic.items() if len(items) > LIKES)
    dislikable = sorted(t for t, items in by_topic.items() if len(items) >= DISLIKES)
    if not likable or len(dislikable) < 2 or len(topics.topics) < LIKES + DISLIKES + 2:
        raise EdgeRankerError("too few items per topic to simulate users")
    users = []
    for _ in range(n):
        liked = str(rng.choice(likable))
        disliked = str(rng.choice([t for t in dislikable if t != liked]))
        likes = [int(i) for i in rng.choice(by_topic[liked], LIKES, replace=False)]
        dislikes = [int(i) for i in rng.choice(by_topic[disliked], DISLIKES, replace=False)]
        rest = np.setdiff1d(np.arange(len(topics.topics)), likes + dislikes)
        candidates = [int(i) for i in rng.choice(rest, min(CANDIDATES, rest.size), replace=False)]
        if setting == "mono":
            home = away = "en" if "en" in langs else langs[0]
        elif setting == "cross":
            home, away = (str(x) for x in rng.choice(langs, 2, replace=len(langs) < 2))
        else:
            home = away = None

        def lang(fixed: str | None) -> str:
            return fixed if fixed is not None else str(rng.choice(langs))

        users.append(
            User(
                [(i, lang(home)) for i in likes],
                [(i, lang(home)) for i in dislikes],
                [(i, lang(away)) for i in candidates],
                liked,
                disliked,
            )
        )
    return users


def ndcg_at(relevant: np.ndarray, k: int = TOP) -> float:
    """nDCG@k of a 0/1 relevance list already in ranked order."""
    gains = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = float((relevant[:k] * gains[: min(k, relevant.size)]).sum())
    ideal = float(gains[: min(k, int(relevant.sum()))].sum())
    return dcg / ideal if ideal else 0.0


def _judge(order: list[int], user: User, topics: Topics) -> tuple[float, float]:
    ranked = [user.candidates[i][0] for i in order]
    relevant = np.array([topics.topics[i] == user.liked for i in ranked], dtype=np.float64)
    disliked = np.mean([topics.topics[i] == user.disliked for i in ranked[:TOP]])
    return ndcg_at(relevant), float(disliked)


def _summary(scores: list[tuple[float, float]]) -> dict[str, float]:
    nd = np.array([s[0] for s in scores])
    return {
        "ndcg@10": float(nd.mean()),
        "ndcg@10_se": float(nd.std(ddof=1) / math.sqrt(len(nd))) if len(nd) > 1 else 0.0,
        "disliked_in_top10": float(np.mean([s[1] for s in scores])),
    }


def plain_rule(vectors: Callable[[str], np.ndarray], users: list[User], topics: Topics) -> dict[str, float]:
    """Each candidate scored by max cosine to the likes minus max cosine to the dislikes."""
    scores = []
    for u in users:
        emb = {lang: vectors(lang) for lang in {lang for _, lang in u.likes + u.dislikes + u.candidates}}
        like = np.stack([emb[lang][i] for i, lang in u.likes])
        dislike = np.stack([emb[lang][i] for i, lang in u.dislikes])
        cand = np.stack([emb[lang][i] for i, lang in u.candidates])
        score = (cand @ like.T).max(1) - (cand @ dislike.T).max(1)
        scores.append(_judge(list(np.argsort(-score, kind="stable")), u, topics))
    return _summary(scores)


def through_ranker(
    semantic, users: list[User], topics: Topics, vectors: Callable[[str], np.ndarray], relevance=None
) -> dict:
    """Each user in a fresh preference store: ``feedback`` for the history, then ``rank`` of the candidates, with
    ``semantic`` (a runtime ``Encoder``) as the ranker's semantic model and ``relevance`` (or none) beside it. A
    reaction the Ranker refuses (a text in a script the models lack) is left out of the history, as an app would
    show the refusal and go on; ``refused`` counts them."""
    from edge_ranker.runtime.documents import Document
    from edge_ranker.runtime.ranker import Ranker, Unlearnable
    from edge_ranker.runtime.store import PreferenceStore

    scores = []
    refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, u in enumerate(users):
            with PreferenceStore(Path(tmp) / f"user{n}.sqlite") as store:
                ranker = Ranker(semantic, relevance, store)
                for reaction, items in (("like", u.likes), ("dislike", u.dislikes)):
                    for i, lang in items:
                        try:
                            ranker.feedback(Document(f"h{i}-{lang}", topics.texts[lang][i]), reaction)
                        except Unlearnable:
                            refused += 1
                docs = [Document(f"c{k}", topics.texts[lang][i]) for k, (i, lang) in enumerate(u.candidates)]
                given = np.stack([vectors(lang)[i] for i, lang in u.candidates])
                ranking = ranker.rank(docs, semantic_vectors=given)
                scores.append(_judge([int(d[1:]) for d in ranking.ids], u, topics))
    return {**_summary(scores), "refused": refused}


def random_order(users: list[User], topics: Topics, seed: int = 0, draws: int = 20) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    scores = []
    for u in users:
        draws_of_u = [_judge(list(rng.permutation(len(u.candidates))), u, topics) for _ in range(draws)]
        scores.append((float(np.mean([d[0] for d in draws_of_u])), float(np.mean([d[1] for d in draws_of_u]))))
    return _summary(scores)


def evaluate_personal(
    encoders: dict[str, object],
    data_root: str | Path,
    users: int = USERS,
    split: str = "dev",
    settings: tuple[str, ...] = SETTINGS,
    seed: int = 0,
    item_sentences: int = 1,
    relevance=None,
) -> dict:
    """``{setting: {"random": ..., spec: {"plain": ..., "ranker": ...}}}``: every encoder on the same users.
    ``encoders`` maps a name to an object with ``encode(texts)``; runtime models also go through the ``Ranker``.
    ``item_sentences`` > 1: each item is that many sentences of one topic (``as_articles``); ``relevance``: the
    runtime relevance model each Ranker holds beside the evaluated model, as an app does (none: interests of the
    semantic model alone)."""
    topics = load_topics(data_root, split)
    if item_sentences != 1:
        topics = as_articles(topics, item_sentences)
        if len(topics.topics) < LIKES + DISLIKES + CANDIDATES:
            raise EdgeRankerError(
                f"SIB-200 {split} makes only {len(topics.topics)} items of {item_sentences} sentences, fewer than a "
                f"user's {LIKES + DISLIKES + CANDIDATES}: use the train split (--topics-split train) or fewer sentences"
            )
    out: dict = {}
    cache: dict[tuple[str, str], np.ndarray] = {}
    for setting in settings:
        people = simulate_users(topics, setting, users, seed)
        res: dict = {"random": random_order(people, topics, seed)}
        for name, enc in encoders.items():

            def vectors(lang: str, name: str = name, enc=enc) -> np.ndarray:
                if (name, lang) not in cache:
                    v = np.asarray(enc.encode(topics.texts[lang]), dtype=np.float32)
                    cache[(name, lang)] = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
                return cache[(name, lang)]

            res[name] = {"plain": plain_rule(vectors, people, topics)}
            if (model := runtime_model(enc)) is not None:
                res[name]["ranker"] = through_ranker(model, people, topics, vectors, relevance)
        out[setting] = res
    return out
