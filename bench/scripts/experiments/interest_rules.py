"""Search with a history, replayed offline under other interest scores: is it the rule or the vectors that hold the
usefulness lift down? (bench/experiments/search-and-interests.md,
"Other interest scores on the same searches").

The searches of ``edge-ranker eval semantic relevance --personal-search`` are drawn as it draws them (same users,
queries and items for a split, seed and item length) and ranked once through the Ranker on an empty store for their
query scores; each document's lift is then ``fusion.personal_lift`` of an interest score computed here from the
Ranker's interest vectors, so the shipped score (``coi``, Xayn's nearest centers of interest) reproduces the eval's
``ranker@W`` figures, and the others change only the score:

- ``top3``: the mean of the 3 highest cosines to the likes, less the same of the dislikes;
- ``centroid``: the cosine to the likes' mean direction, less that to the dislikes';
- ``lse``: a soft maximum (log-mean-exp, temperature 0.05) of the cosines to the likes, less that of the dislikes;
- ``prf``: the shipped score plus the cosine to the mean of the 10 documents it ranks highest (pseudo-relevance
  feedback: the feed's own documents widen the likes);
- ``oracle``: 1 for the liked topic, -0.5 for the disliked one, 0 for the others and for the QA sets' documents
  (the protocol's ceiling).

``python bench/scripts/experiments/interest_rules.py --data ../shared/data [--split train --item-sentences 4 --seed 1]``
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from edge_ranker.cli import common
from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate import personal_search as ps
from edge_ranker.evaluate.crosslingual import DIRECTIONS
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.fusion import personal_lift, query_part
from edge_ranker.runtime.interests import CoIConfig
from edge_ranker.runtime.lexical import matched, terms

WEIGHTS = (4, 8, 16, 32, 64)
Score = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]  # documents', likes' and dislikes' vectors


def cois(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The centers of interest the store builds from reactions in order (``interests.react``): points and counts."""
    cfg = CoIConfig()
    points: list[np.ndarray] = []
    counts: list[int] = []
    for e in vectors:
        if points:
            sims = np.array(points) @ e
            i = int(sims.argmax())
            if sims[i] >= cfg.threshold:
                p = (1 - cfg.shift_factor) * points[i] + cfg.shift_factor * e
                points[i], counts[i] = p / np.linalg.norm(p), counts[i] + 1
                continue
        points.append(e.copy())
        counts.append(1)
    return np.array(points), np.array(counts, float)


def coi(docs: np.ndarray, likes: np.ndarray, dislikes: np.ndarray) -> np.ndarray:
    """The shipped score with fresh reactions: nearest like's cosine plus its share of reactions, less the nearest
    dislike's cosine (``interests.personal_scores``)."""
    pos, count = cois(likes)
    neg, _ = cois(dislikes)
    sims = docs @ pos.T
    return sims.max(1) + (count / count.sum())[sims.argmax(1)] - (docs @ neg.T).max(1)


def top3(docs: np.ndarray, likes: np.ndarray, dislikes: np.ndarray) -> np.ndarray:
    """Three likes vote, so one odd like decides less than it does for the nearest."""

    def mean3(s: np.ndarray) -> np.ndarray:
        return -np.sort(-s, axis=1)[:, :3].mean(1)

    return mean3(docs @ likes.T) - mean3(docs @ dislikes.T)


def centroid(docs: np.ndarray, likes: np.ndarray, dislikes: np.ndarray) -> np.ndarray:
    """One direction per polarity: what the likes share, their noise averaged out."""

    def direction(v: np.ndarray) -> np.ndarray:
        m = v.mean(0)
        return m / np.linalg.norm(m)

    return docs @ direction(likes) - docs @ direction(dislikes)


def lse(docs: np.ndarray, likes: np.ndarray, dislikes: np.ndarray, t: float = 0.05) -> np.ndarray:
    """Between the nearest and the mean: near likes count most, the others a little."""

    def soft(s: np.ndarray) -> np.ndarray:
        top = s.max(1, keepdims=True)
        return (top + t * np.log(np.exp((s - top) / t).mean(1, keepdims=True)))[:, 0]

    return soft(docs @ likes.T) - soft(docs @ dislikes.T)


def prf(docs: np.ndarray, likes: np.ndarray, dislikes: np.ndarray, m: int = 10) -> np.ndarray:
    """The feed's documents most like the likes stand in for more likes: topics cluster among the candidates."""
    score = coi(docs, likes, dislikes)
    widened = docs[np.argsort(-score)[:m]].mean(0)
    return score + docs @ (widened / np.linalg.norm(widened))


SCORES: dict[str, Score] = {"coi": coi, "top3": top3, "centroid": centroid, "lse": lse, "prf": prf}
ORACLE = "oracle"  # scored from the documents' topics, not their vectors


def record(
    semantic: Encoder,
    relevance: Encoder,
    data_root: str | Path,
    split: str = "dev",
    item_sentences: int = 1,
    seed: int = 0,
    users_per_setting: int = ps.USERS,
    qa_sets: dict[str, str] | None = None,
    directions: list[tuple[str, str]] | None = None,
) -> dict:
    """Every search of ``evaluate_personal_search`` with these settings, drawn by its own generators, so the same
    users: each with its user, documents, grades, query scores and matched shares, and the interest vectors."""
    topics = ps.search_topics(data_root, split, item_sentences)
    qa_sets = ps.QA_SETS if qa_sets is None else qa_sets
    langs = sorted(topics.texts)
    directions = [d for d in directions or DIRECTIONS if set(d) <= set(langs)]
    with tempfile.TemporaryDirectory() as tmp:
        users = ps.Users(semantic, relevance, topics, Path(tmp), seed)
        empty = users.empty
        vectors: dict[int, np.ndarray] = {}  # each corpus's interest vectors, by the corpus's id
        corpora: list[ps.Corpus] = []  # kept alive, so that no later corpus takes a freed one's id

        def of(corpus: ps.Corpus) -> int:
            if id(corpus) not in vectors:
                corpora.append(corpus)
                texts = [d.text for d in corpus.docs]
                vectors[id(corpus)] = empty.interest_vectors(texts, corpus.semantic, corpus.passages)
            return id(corpus)

        def kept(s: ps.Search) -> dict:
            texts = [s.corpus.docs[i].text for i in s.keep]
            m = matched(terms(relevance.tokenizer, relevance.cut(s.query)), empty.terms.feed(relevance, texts))
            q = s.corpus.rank(empty, s.keep, s.query, 0.0)._query
            return {"user": s.user, "keep": s.keep, "gains": s.gains, "docs": of(s.corpus), "q": q, "m": m}

        out: dict = {"labels": np.array(topics.topics), "qa_sets": set(qa_sets), "robustness": {}, "usefulness": {}}
        for part, searches in (
            ("robustness", ps.robustness_searches(users, data_root, directions, qa_sets)),
            ("usefulness", ps.usefulness_searches(users, ps.SETTINGS, users_per_setting)),
        ):
            for s in searches:
                out[part].setdefault(s.group, []).append(kept(s) | {"qa": s.group in qa_sets})
        history = {lang: of(ps.Corpus(users, topics.texts[lang])) for lang in langs}
        out["vec"] = vectors | {lang: vectors[i] for lang, i in history.items()}
        empty.store.close()
    return out


def oracle(topics: np.ndarray, liked: str, disliked: str) -> np.ndarray:
    """What interests that knew the topics would say: 1 for the liked one, -0.5 for the disliked, 0 for others."""
    return (topics == liked) - 0.5 * (topics == disliked)


def replay(rec: dict, name: str, weights: tuple[float, ...] = WEIGHTS) -> dict[tuple[str, str, float], float]:
    """Mean graded nDCG@10 of each set or setting at each weight (0: the query alone) under interest score ``name``.
    Every document counts as one the interests can judge (the Ranker leaves out the wordless and those it cannot
    read, which these sets do not hold)."""
    out: dict = {}
    for part in ("robustness", "usefulness"):
        for group, searches in rec[part].items():
            for s in searches:
                u = s["user"]
                if name == ORACLE:  # a QA set's documents are of no topic the user has
                    topics = np.full(s["keep"].size, "") if s["qa"] else rec["labels"][s["keep"]]
                    p = oracle(topics, u.liked, u.disliked)
                else:
                    likes, dislikes = rec["vec"][u.lang][list(u.likes)], rec["vec"][u.lang][list(u.dislikes)]
                    p = SCORES[name](rec["vec"][s["docs"]][s["keep"]], likes, dislikes)
                known, wordless = np.ones(p.size, bool), np.zeros(p.size, bool)
                for w in (0, *weights):
                    lift = personal_lift(p, s["m"], known, w, s["q"])
                    order = np.argsort(-(query_part(s["q"], lift, wordless) + lift), kind="stable")
                    out.setdefault((part, group, w), []).append(ps.graded_ndcg(np.asarray(s["gains"], float)[order]))
    return {k: float(np.mean(v)) for k, v in out.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="the project's data folder")
    p.add_argument("--split", default="dev", choices=["dev", "train"])
    p.add_argument("--item-sentences", type=common.positive, default=1)
    p.add_argument("--seed", type=common.seed, default=0)
    p.add_argument("--users", type=common.positive, default=ps.USERS, help="simulated users per usefulness setting")
    p.add_argument("--semantic", default="semantic", help="the Ranker's semantic model (shipped name or folder)")
    p.add_argument("--relevance", default="relevance", help="the Ranker's relevance model (shipped name or folder)")
    p.add_argument("--scores", nargs="+", default=[*SCORES, ORACLE], choices=[*SCORES, ORACLE])
    args = p.parse_args()
    rec = record(
        Encoder.load(args.semantic),
        Encoder.load(args.relevance),
        args.data,
        args.split,
        args.item_sentences,
        args.seed,
        args.users,
    )
    print("| interest score | weight | min kept (robustness) | usefulness lift |\n|---|---|---|---|")
    for name in args.scores:
        res = replay(rec, name)
        for w in WEIGHTS:
            kept = min(res[("robustness", g, w)] / res[("robustness", g, 0)] for g in rec["robustness"])
            lift = np.mean([res[("usefulness", s, w)] - res[("usefulness", s, 0)] for s in rec["usefulness"]])
            print(f"| {name} | {w} | {100 * kept:.1f}% | {lift:+.3f} |")


if __name__ == "__main__":
    try:
        main()
    except EdgeRankerError as exc:
        raise SystemExit(f"error: {exc}") from None
