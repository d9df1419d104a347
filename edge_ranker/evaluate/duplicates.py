"""Feeds that tell one story several times: does the Ranker show each story once?

Each simulated feed holds ``STORIES`` SIB-200 dev items (stories), each in a random one of the 10 languages; ``TWICE``
of them come again in one or two other languages (the same story from outlets in other languages: SIB-200 items are
parallel across languages). The reader liked ``LIKES`` items of one topic, drawn from the train split so that none
is in the feed. Through the Ranker, with duplicates kept and folded:

- distinct stories in the top 10;
- the folds' precision (a folded document tells the story of the one it is folded under) and recall (of the
  documents whose story is already ranked above them, the share folded);
- nDCG@10 over stories (a story counts once, where it first appears; the liked topic's stories are relevant).

``sweep`` gives the folds' precision and recall at other cosines, on the same rankings, for the choice of
``DUPLICATE_COSINE``. SIB-200's stories of one topic are long, specific sentences that rarely come close, so the
precision misses what a reader sees in a feed of short headlines: ``traps`` counts, at each cosine, the pairs of the
demo feed's 24 stories (short, 7 topics, 10 languages, no two the same story) that would fold.
"""

from __future__ import annotations

import numpy as np

from edge_ranker.datasets.topics import load_topics
from edge_ranker.evaluate.feed_sessions import Memo
from edge_ranker.evaluate.personal import ndcg_at
from edge_ranker.runtime.constants import DUPLICATE_COSINE
from edge_ranker.runtime.duplicates import fold

FEEDS, STORIES, TWICE, LIKES, TOP = 100, 45, 15, 5, 10
SWEEP = (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)


def story_feed(rng: np.random.Generator, n_items: int, langs: list[str]) -> list[tuple[int, str]]:
    """(story, language) documents in a random order: ``STORIES`` stories, ``TWICE`` of them in 2 or 3 languages."""
    stories = rng.choice(n_items, STORIES, replace=False)
    docs = []
    for k, s in enumerate(stories):
        copies = 1 if k >= TWICE else int(rng.integers(2, 4))
        docs += [(int(s), str(lang)) for lang in rng.choice(langs, copies, replace=False)]
    return [docs[i] for i in rng.permutation(len(docs))]


def _judge(order: list[int], of: list[int | None], feed: list[tuple[int, str]], relevant: set[int]) -> dict:
    """Distinct stories in the top 10, the folds (right, made) and the duplicates there were, nDCG@10 over stories."""
    story = [feed[i][0] for i in order]
    seen: set[int] = set()
    gains, first = [], []
    for s in story:
        first.append(s not in seen)
        gains.append(1.0 if s in relevant and s not in seen else 0.0)
        seen.add(s)
    folded = [(i, j) for i, j in zip(order, of) if j is not None]
    return {
        "distinct": len(set(story[:TOP])),
        "right": sum(feed[i][0] == feed[j][0] for i, j in folded),
        "made": len(folded),
        "duplicates": sum(not f for f in first),
        "ndcg": ndcg_at(np.array(gains), TOP),  # each relevant story once, so the ideal is theirs
    }


def traps(semantic: object) -> dict:
    """Pairs of the demo feed's distinct stories at or above each cosine of the sweep and the shipped one."""
    from edge_ranker.demo import load_feed

    docs, _ = load_feed()
    vectors = semantic.encode([d.text for d in docs])
    upper = (vectors @ vectors.T)[np.triu_indices(len(docs), 1)]
    return {"stories": len(docs), "pairs": len(upper)} | {
        str(c): int((upper >= c).sum()) for c in sorted({*SWEEP, DUPLICATE_COSINE})
    }


def evaluate_duplicates(
    data_root: str, semantic: object, relevance: object | None, feeds: int = FEEDS, seed: int = 0
) -> dict:
    """``{"keep": ..., "fold": ..., "sweep": {cosine: {"precision", "recall"}}}`` on the same feeds and readers."""
    from edge_ranker.runtime.documents import Document
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    dev, train = load_topics(data_root, "dev"), load_topics(data_root, "train")
    langs = sorted(set(dev.texts) & set(train.texts))
    semantic, relevance = Memo(semantic), (Memo(relevance) if relevance is not None else None)
    rng = np.random.default_rng(seed)
    topics = sorted(set(dev.topics) & set(train.topics))
    totals = {arm: [] for arm in ("keep", "fold")}
    sweep = {c: [0, 0, 0] for c in SWEEP}  # right, made, duplicates
    for _ in range(feeds):
        topic = str(rng.choice(topics))
        liked = rng.choice([i for i, t in enumerate(train.topics) if t == topic], LIKES, replace=False)
        feed = story_feed(rng, len(dev.topics), langs)
        docs = [Document(f"{k}", dev.texts[lang][s]) for k, (s, lang) in enumerate(feed)]
        relevant = {s for s, _ in feed if dev.topics[s] == topic}
        with PreferenceStore(":memory:") as store:
            ranker = Ranker(semantic, relevance, store)
            for i in liked:
                ranker.like(Document(f"h{i}", train.texts[str(rng.choice(langs))][int(i)]))
            for arm in totals:
                ranked = ranker.rank(docs, duplicates=arm, now=None)
                order = [int(d) for d in ranked.ids]
                of = [None if r.duplicate_of is None else int(r.duplicate_of) for r in ranked]
                totals[arm].append(_judge(order, of, feed, relevant))
            by_score = np.array([int(d) for d in ranker.rank(docs, duplicates="keep").ids])
            vectors = semantic.encode([d.text for d in docs])
            for cosine in SWEEP:
                folded_order, folded = fold(by_score, vectors, None, cosine)
                judged = _judge(
                    folded_order.tolist(), [None if folded[i] < 0 else int(folded[i]) for i in folded_order],
                    feed, relevant,
                )
                for k, key in enumerate(("right", "made", "duplicates")):
                    sweep[cosine][k] += judged[key]
    out: dict = {"feeds": feeds, "stories": STORIES, "told_twice": TWICE, "cosine": DUPLICATE_COSINE, "seed": seed}
    for arm, rows in totals.items():
        right, made, dups = (sum(r[k] for r in rows) for k in ("right", "made", "duplicates"))
        out[arm] = {
            "distinct_in_top10": float(np.mean([r["distinct"] for r in rows])),
            "ndcg@10_stories": float(np.mean([r["ndcg"] for r in rows])),
            "fold_precision": right / made if made else None,
            "fold_recall": right / dups if dups else None,
        }
    out["traps"] = traps(semantic)
    out["sweep"] = {
        str(c): {"precision": r / m if m else None, "recall": r / d if d else None} for c, (r, m, d) in sweep.items()
    }
    return out
