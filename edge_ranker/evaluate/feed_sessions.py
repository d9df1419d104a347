"""A feed read over days: readers who open, read and scroll past, as real readers do, beside readers who press like
and dislike, and readers who do nothing.

SIB-200 (7 topics, parallel across the 10 languages) becomes simulated readers, each with a topic they love and one
they avoid. Each session (a day apart) the feed holds ``NEW`` new items, each in a random one of the 10 languages,
and the items shown before that the reader did not open (up to ``POOL`` in all: what a feed keeps until it is read).
The Ranker (the path an app runs) orders them and the app shows the top ``TOP``. Arms:

- ``implicit``: the app records what it showed (``Ranker.shown``); the reader opens the shown items of the loved
  topic and reads each for ``READ_S`` seconds (``Ranker.viewed``), and scrolls past the rest;
- ``explicit``: the reader likes the shown items of the loved topic and dislikes those of the avoided one;
- ``cold``: the reader does nothing;
- ``two_topics``: a reader of two topics, as ``implicit`` but who also opens the shown items of a ``second`` topic
  and reads each for ``SECOND_READ_S`` seconds, a shorter while: the topic read more fills the top of a feed unless
  the ranking lets each interest take turns (``diversity``).

Reported per arm: nDCG@10 of each session's order against the loved topic (both topics for ``two_topics``),
averaged over sessions 2 onward (the first is a cold start for everyone), the avoided topic's share of the top 10,
and ``both_in_top3``: the share of those sessions whose top 3 holds both loved topics, of the sessions whose feed
holds both. Dev data only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from edge_ranker.datasets.topics import Topics, as_articles, load_topics
from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.personal import ndcg_at
from edge_ranker.runtime.constants import DIVERSITY

ARMS = ("implicit", "explicit", "cold", "two_topics")
READERS, SESSIONS, NEW, POOL, TOP, READ_S, SECOND_READ_S = 60, 6, 15, 30, 10, 40.0, 15.0
DAY = 86_400.0
START = 1_700_000_000.0  # the first session's unix time: fixed, so that a run's figures do not move with the clock


@dataclass
class Reader:
    """A simulated reader: the topic they love and the one they avoid, and the items (index, language) their feed
    brings, session by session."""

    loved: str
    avoided: str
    arrivals: list[list[tuple[int, str]]] = field(default_factory=list)
    second: str = ""  # the other topic a reader of two topics reads


class Memo:
    """A runtime ``Encoder`` whose vectors are kept across readers: each reader has a Ranker of their own, and the
    same item recurs in many feeds."""

    def __init__(self, encoder: object) -> None:
        self._encoder, self._memo = encoder, {}

    def __getattr__(self, name: str) -> object:
        return getattr(self._encoder, name)

    def encode(self, texts: list[str], role: str | None = None, **kwargs: object) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if (t, role) not in self._memo))
        if missing:
            for t, v in zip(missing, self._encoder.encode(missing, role=role, **kwargs)):
                self._memo[(t, role)] = v
        return np.stack([self._memo[(t, role)] for t in texts]) if texts else np.zeros((0, self._encoder.dim))


def simulate_readers(topics: Topics, n: int, seed: int = 0) -> list[Reader]:
    """``n`` readers, seeded: their feeds draw items without repeats, each in a random language."""
    rng = np.random.default_rng(seed)
    langs = sorted(topics.texts)
    names = sorted(set(topics.topics))
    if len(topics.topics) < SESSIONS * NEW or len(names) < 3:
        raise EdgeRankerError(f"{len(topics.topics)} items: a reader's feed needs {SESSIONS * NEW} of 3 topics or more")
    readers = []
    for _ in range(n):
        loved, avoided = (str(t) for t in rng.choice(names, 2, replace=False))
        order = rng.permutation(len(topics.topics))[: SESSIONS * NEW]
        items = [(int(i), str(rng.choice(langs))) for i in order]
        readers.append(Reader(loved, avoided, [items[s * NEW : (s + 1) * NEW] for s in range(SESSIONS)]))
    second = np.random.default_rng((seed, 1))  # a stream of its own: the one-topic readers do not depend on it
    for r in readers:
        r.second = str(second.choice([t for t in names if t not in (r.loved, r.avoided)]))
    return readers


def _session_scores(
    topics: Topics, reader: Reader, arm: str, semantic: object, relevance: object, diversity: float | None = None
) -> list[tuple]:
    """Each session's (nDCG@10, avoided share of the top 10, both loved topics in the top 3: 1, 0 or NaN when the
    feed lacks one) for one reader in one arm, through a fresh Ranker."""
    from edge_ranker.runtime.documents import Document
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    out = []
    with PreferenceStore(":memory:") as store:
        ranker = Ranker(semantic, relevance, store)
        waiting: list[tuple[int, str]] = []  # shown before, not opened: still in the feed
        for s, arriving in enumerate(reader.arrivals):
            now = START + s * DAY
            feed = (arriving + waiting)[:POOL]
            docs = [Document(f"{i}-{lang}", topics.texts[lang][i]) for i, lang in feed]
            ranked = ranker.rank(docs, now=now, diversity=diversity)
            position = {d: k for k, d in enumerate(ranked.ids)}
            order = sorted(range(len(feed)), key=lambda k: position[docs[k].id])
            topic = [topics.topics[feed[k][0]] for k in order]
            loved = {reader.loved, reader.second} if arm == "two_topics" else {reader.loved}
            relevant = np.array([t in loved for t in topic], dtype=np.float64)
            avoided = np.mean([t == reader.avoided for t in topic[:TOP]])
            both = float(loved <= set(topic[:3])) if len(loved) == 2 and loved <= set(topic) else math.nan
            out.append((ndcg_at(relevant, TOP), float(avoided), both))
            shown = order[:TOP]
            gone = set()  # what the reader opened or dismissed leaves the feed; the rest waits for the next session
            if arm in ("implicit", "two_topics"):
                ranker.shown([docs[k] for k in shown], ts=now + 1)
                gone = {k for k in shown if topics.topics[feed[k][0]] in loved}
                for k in sorted(gone):
                    seconds = READ_S if topics.topics[feed[k][0]] == reader.loved else SECOND_READ_S
                    ranker.viewed(docs[k], seconds, ts=now + 2)
            elif arm == "explicit":
                gone = {k for k in shown if topics.topics[feed[k][0]] in (reader.loved, reader.avoided)}
                for k in sorted(gone):
                    liked = topics.topics[feed[k][0]] == reader.loved
                    ranker.feedback(docs[k], "like" if liked else "dislike", ts=now + 2)
            waiting = [item for k, item in enumerate(feed) if k not in gone]
    return out


def evaluate_feed_sessions(
    data_root: str, semantic: object, relevance: object | None, readers: int = READERS, seed: int = 0,
    split: str = "dev", item_sentences: int = 1, arms: tuple[str, ...] = ARMS, diversity: float | None = None,
) -> dict:
    """``{arm: {"ndcg@10", "ndcg@10_se", "avoided_in_top10", "per_session"}}`` on the same readers (``two_topics``
    also ``both_in_top3``), plus the settings. ``item_sentences`` > 1: article-length items (``as_articles``);
    ``diversity``: the Ranker's (None: its default)."""
    topics = load_topics(data_root, split)
    if item_sentences != 1:
        topics = as_articles(topics, item_sentences)
    people = simulate_readers(topics, readers, seed)
    semantic, relevance = Memo(semantic), (Memo(relevance) if relevance is not None else None)
    out: dict = {"readers": readers, "sessions": SESSIONS, "new": NEW, "pool": POOL, "read_s": READ_S,
                 "split": split, "item_sentences": item_sentences, "seed": seed,
                 "diversity": DIVERSITY if diversity is None else diversity}
    for arm in arms:
        scores = np.array(
            [_session_scores(topics, r, arm, semantic, relevance, diversity) for r in people]
        )  # (readers, sessions, 3)
        later = scores[:, 1:, 0].mean(axis=1)
        out[arm] = {
            "ndcg@10": float(later.mean()),
            "ndcg@10_se": float(later.std(ddof=1) / math.sqrt(len(later))) if len(later) > 1 else 0.0,
            "avoided_in_top10": float(scores[:, 1:, 1].mean()),
            "per_session": [round(float(x), 4) for x in scores[:, :, 0].mean(axis=0)],
        }
        if arm == "two_topics":
            both = scores[:, 1:, 2]
            out[arm]["both_in_top3"] = float(np.nanmean(both)) if np.isfinite(both).any() else math.nan
    return out
