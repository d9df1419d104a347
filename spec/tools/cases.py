"""Writes the conformance cases of spec/cases/<rule>/<name>.json from the Python reference runtime: each case is
one call of one rule's function (``function``, ``input``) and what it gives (``expected``, or ``error``: the exact
words of a refusal), which the Python, JVM and web runtimes each run (tests/test_spec.py, the JVM core's SpecTest,
web/test/spec.test.js). ``tolerance`` bounds the difference allowed on numbers (float32 arithmetic in the ports).

Usage: python -m spec.tools.cases (rewrites spec/cases; tests/test_spec.py fails while a case is stale).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.diversity import diversify
from edge_ranker.runtime.documents import documents, unique_ids
from edge_ranker.runtime.duplicates import fold, sink
from edge_ranker.runtime.encoder import split_windows
from edge_ranker.runtime.fusion import neutral, personal_lift, query_part, query_scores, recency, rrf
from edge_ranker.runtime.interests import CoIConfig, alive, decay, interest_vectors, personal_scores, unit
from edge_ranker.runtime.lexical import Bag, TermIndex, bm25, coverage, matched
from edge_ranker.runtime.signals import Event, Reaction, reactions
from edge_ranker.runtime.store.events import check_view_time, replay_reactions

CASES = Path(__file__).resolve().parents[1] / "cases"
EXACT, CLOSE, FLOAT32 = 0.0, 1e-9, 1e-6  # integers and orders; float64 arithmetic; float32 vectors
GERMAN = ["der", "bundestag", "debattiert", "über", "den", "haushalt", "in", "berlin"]  # "in": German and English
MIXED_FEED = [GERMAN, ["budget", "debate", "in", "the", "parliament"], ["nudeln", "mit", "käse", "in", "der", "pfanne"]]


def _floats(x: Any) -> Any:
    """Arrays (also inside dicts) as plain lists of Python numbers, for JSON."""
    if isinstance(x, dict):
        return {k: _floats(v) for k, v in x.items()}
    return np.asarray(x).tolist() if isinstance(x, np.ndarray) else x


def _config(overrides: dict) -> CoIConfig:
    return CoIConfig(**overrides)


def _feed(docs: list[list[str]]) -> TermIndex:
    return TermIndex.of([Bag.of(d) for d in docs])


def _interests(i: dict) -> dict:
    """The interests a sequence of reactions leaves, and each document's personal score under them at ``now``."""
    cfg = _config(i.get("config", {}))
    given = [
        Reaction(unit(np.asarray(r["vector"], np.float32)), r["positive"], r["ts"], r.get("weight", 1.0), "d", "like")
        for r in i["reactions"]
    ]
    positive, negative = replay_reactions(given, cfg)
    live = [alive(c, i["now"], cfg) for c in (positive, negative)]  # as Ranker.rank scores: the live interests
    scores = personal_scores(np.asarray(i["docs"], np.float32), *live, i["now"], cfg)
    out: dict[str, Any] = {
        side: [
            {"point": c.point.tolist(), "view_count": c.view_count, "last_view": c.last_view, "weight": c.weight}
            for c in cois
        ]
        for side, cois in (("positives", positive), ("negatives", negative))
    }
    out["scores"] = [
        {k: v for k, v in scores.explain(d).items()} | {"score": float(scores.score[d])} for d in range(len(i["docs"]))
    ]
    return out


def _implicit(i: dict) -> list[dict]:
    """The weighted reactions a reader's events make (``signals.reactions``)."""
    events = [
        Event(e["doc_id"], e["kind"], e["ts"], np.asarray(e["vector"], np.float32), e.get("seconds", 0.0))
        for e in i["events"]
    ]
    return [
        {"doc_id": r.doc_id, "kind": r.kind, "positive": r.positive, "ts": r.ts, "weight": r.weight,
         "vector": r.vector.tolist()}
        for r in reactions(events, i["threshold"])
    ]


def _check(i: dict) -> None:
    """A call the runtimes refuse; its error's words are the case's expectation."""
    if i["call"] == "view_time":
        check_view_time(i["seconds"])
    elif i["call"] == "documents":
        unique_ids(documents(i["docs"]))
    elif i["call"] == "ranker":
        from edge_ranker.runtime.ranker import check_options

        check_options(**i["options"])


FUNCTIONS: dict[str, Callable[[dict], Any]] = {
    "rrf": lambda i: rrf(np.asarray(i["scores"], float), i["k"]),
    "personal_lift": lambda i: personal_lift(
        np.asarray(i["personal"], float), np.asarray(i["matched"], float), np.asarray(i["known"], bool), i["weight"],
        np.asarray(i["score"], float),
    ),
    "query_part": lambda i: query_part(
        np.asarray(i["score"], float), np.asarray(i["lift"], float), np.asarray(i["wordless"], bool)
    ),
    "query_scores": lambda i: query_scores(
        np.asarray(i["cosine"], float),
        None if i["lexical"] is None else np.asarray(i["lexical"], float),
        i["weight"],
        None if i["semantic"] is None else np.asarray(i["semantic"], float),
        i["cover"],
        i["semantic_weight"],
    ),
    "neutral": lambda i: neutral(np.asarray(i["cosine"], float), np.asarray(i["unread"], bool), i["blind"]),
    "bm25": lambda i: bm25(i["query"], _feed(i["docs"])),
    "matched": lambda i: matched(i["query"], _feed(i["docs"])),
    "coverage": lambda i: coverage(i["query"], _feed(i["docs"])),
    "language": lambda i: Bag.of(i["terms"]).lang,
    "diversify": lambda i: diversify(
        np.asarray(i["order"], np.int64), np.asarray(i["score"], float), np.asarray(i["group"], np.int64),
        i["weight"], i["window"],
    ),
    "decay": lambda i: decay(i["last_view"], i["now"], _config(i.get("config", {}))),
    "interests": _interests,
    "implicit": _implicit,
    "interest_vectors": lambda i: interest_vectors(
        np.asarray(i["semantic"], np.float32), np.asarray(i["passages"], np.float32)
    ),
    "recency": lambda i: recency(i["published"], np.asarray(i["wordless"], bool), i["k"]),
    "split_windows": lambda i: split_windows(i["ids"], i["max_length"], i["windows"], i["head"]),
    "check": _check,
    "fold": lambda i: dict(zip(("order", "duplicate_of"), fold(
        np.asarray(i["order"], np.int64), np.asarray(i["vectors"], np.float32), None, i["threshold"], i["window"]))),
    "sink": lambda i: sink(
        np.asarray(i["order"], np.int64), np.asarray(i["reacted"], bool), i["how"], np.asarray(i["folded"], np.int64),
        np.asarray(i["end"], bool),
    ),
}


def _unit(rng: np.random.Generator, n: int, d: int) -> list[list[float]]:
    v = rng.standard_normal((n, d)).astype(np.float32)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32).tolist()


def _near(base: list[float], rng: np.random.Generator, noise: float) -> list[float]:
    v = np.asarray(base, np.float32) + noise * rng.standard_normal(len(base)).astype(np.float32)
    return (v / np.linalg.norm(v)).astype(np.float32).tolist()


def definitions() -> list[tuple[str, str, str, str, dict, float]]:
    """Every case: (rule, name, why, function, input, tolerance)."""
    rng = np.random.default_rng(0)
    day = 86_400.0
    topics = _unit(rng, 3, 8)
    reactions = [
        {"vector": topics[0], "positive": True, "ts": 1_000 * day},
        {"vector": _near(topics[0], rng, 0.1), "positive": True, "ts": 1_001 * day},
        {"vector": topics[1], "positive": True, "ts": 1_002 * day},
        {"vector": topics[2], "positive": False, "ts": 1_003 * day},
        {"vector": _near(topics[2], rng, 0.1), "positive": False, "ts": 1_004 * day},
    ]
    docs = [_near(t, rng, 0.3) for t in topics] + _unit(rng, 2, 8)
    return [
        ("rrf", "ranks", "1 / (k + rank), rank 1 for the highest score", "rrf",
         {"scores": [0.3, 0.9, -1.0, 0.5], "k": 60}, CLOSE),
        ("rrf", "ties-in-input-order", "equal scores rank in input order", "rrf",
         {"scores": [1.0, 1.0, 2.0, 1.0], "k": 1}, CLOSE),
        ("sink", "answer-never-below-a-non-answer", "a disliked answer sinks at most SINK of the way down to the "
         "non-answer below it", "personal_lift",
         {"personal": [-2.0, 0.5, 0.1, 0.0], "matched": [1.0, 0.0, 0.5, 0.0], "known": [True, True, True, True],
          "weight": 16.0, "score": [1.0, 0.5, 0.8, -0.2]}, CLOSE),
        ("sink", "non-answers-get-no-lift", "a document without the query's words gets no lift", "personal_lift",
         {"personal": [0.9, 0.1, 0.4], "matched": [0.0, 0.0, 1.0], "known": [True, True, True], "weight": 16.0,
          "score": [0.0, 0.3, 0.1]}, CLOSE),
        ("sink", "median-centred", "the lift is signed around the median of the documents the interests judge; "
         "unknown documents get none", "personal_lift",
         {"personal": [0.2, 0.6, 0.4, 5.0], "matched": [1.0, 1.0, 1.0, 1.0], "known": [True, True, True, False],
          "weight": 2.0, "score": [0.1, 0.2, 0.3, 0.4]}, CLOSE),
        ("sink", "no-weight", "weight 0: the query alone", "personal_lift",
         {"personal": [0.2, 0.6], "matched": [1.0, 1.0], "known": [True, True], "weight": 0.0,
          "score": [0.1, 0.2]}, CLOSE),
        ("query-part", "wordless-last", "a document without a word goes below every other whole score", "query_part",
         {"score": [0.5, 2.0, -0.3], "lift": [0.2, -0.1, 0.0], "wordless": [False, True, False]}, CLOSE),
        ("query-part", "all-wordless", "when every document is wordless, each query part is 0", "query_part",
         {"score": [0.5, 2.0], "lift": [0.0, 0.0], "wordless": [True, True]}, CLOSE),
        ("query-scores", "cosine-and-bm25", "cover 1: the standardised cosine plus BM25 at its weight",
         "query_scores",
         {"cosine": [0.1, 0.4, 0.3], "lexical": [0.0, 2.5, 1.0], "weight": 1.0, "semantic": None, "cover": 1.0,
          "semantic_weight": 2.0}, CLOSE),
        ("query-scores", "words-missing", "a query half of whose words no document has: the semantic cosine "
         "carries the missing half", "query_scores",
         {"cosine": [0.1, 0.4, 0.3, 0.2], "lexical": [0.0, 1.5, 0.0, 0.4], "weight": 1.0,
          "semantic": [0.7, 0.2, 0.1, 0.5], "cover": 0.5, "semantic_weight": 2.0}, CLOSE),
        ("query-scores", "cosine-alone", "no BM25 and no semantic cosine: the relevance cosine as it is",
         "query_scores",
         {"cosine": [0.1, 0.4], "lexical": None, "weight": 1.0, "semantic": None, "cover": 1.0,
          "semantic_weight": 0.0}, CLOSE),
        ("query-scores", "equal-scores", "a score equal on every document standardises to zeros", "query_scores",
         {"cosine": [0.3, 0.3, 0.3], "lexical": [1.0, 1.0, 1.0], "weight": 1.0, "semantic": None, "cover": 1.0,
          "semantic_weight": 2.0}, CLOSE),
        ("neutral", "unread-at-the-mean", "the cosines of documents the models cannot read are the others' mean",
         "neutral", {"cosine": [0.2, 0.9, 0.4], "unread": [False, True, False], "blind": False}, CLOSE),
        ("neutral", "blind-query", "a query the models cannot read: every cosine 0", "neutral",
         {"cosine": [0.2, 0.9, 0.4], "unread": [False, False, False], "blind": True}, CLOSE),
        ("neutral", "all-unread", "no document read: the mean of none is 0", "neutral",
         {"cosine": [0.2, 0.9], "unread": [True, True], "blind": False}, CLOSE),
        ("bm25", "lucene", "Lucene's BM25 over the documents being ranked (k1 1.2, b 0.75)", "bm25",
         {"query": ["train", "strike", "train"], "docs": [["train", "strike", "today"], ["train", "late"],
                                                          ["strike"], ["weather", "sunny", "today", "warm"]]}, CLOSE),
        ("bm25", "no-documents-share-a-word", "a query no document shares scores 0 everywhere", "bm25",
         {"query": ["zug"], "docs": [["train"], ["late"]]}, CLOSE),
        ("bm25", "matched-shares-idf", "each document's idf-weighted share of the query's terms some document holds",
         "matched", {"query": ["train", "strike", "zug"], "docs": [["train", "strike"], ["train"], ["weather"]]},
         CLOSE),
        ("bm25", "coverage", "the share of the query's distinct terms some document holds", "coverage",
         {"query": ["train", "strike", "zug", "streik"], "docs": [["train"], ["strike", "today"]]}, CLOSE),
        ("bm25", "coverage-of-no-terms", "a query without terms covers 1: nothing says it is in another language",
         "coverage", {"query": [], "docs": [["train"]]}, CLOSE),
        ("diversity", "weight-zero-keeps-the-order", "at weight 0 the order is the scores'", "diversify",
         {"order": [0, 1, 2, 3], "score": [0.9, 0.8, 0.7, 0.6], "group": [0, 0, 1, 1], "weight": 0.0, "window": 30},
         EXACT),
        ("diversity", "the-second-interest-takes-a-turn", "each document of a group above lowers the next",
         "diversify", {"order": [0, 1, 2, 3, 4, 5], "score": [0.9, 0.85, 0.8, 0.7, 0.6, 0.5],
                       "group": [0, 0, 0, 1, 1, -1], "weight": 0.3, "window": 30}, EXACT),
        ("diversity", "group-none-is-never-lowered", "a document of no liked interest (-1) keeps its score",
         "diversify", {"order": [0, 1, 2, 3], "score": [0.9, 0.85, 0.8, 0.75], "group": [-1, -1, -1, 0],
                       "weight": 0.2, "window": 30}, EXACT),
        ("diversity", "ties-to-the-better-ranked", "equal lowered scores: the better ranked goes first", "diversify",
         {"order": [2, 0, 1], "score": [0.5, 0.5, 0.7], "group": [1, 2, 0], "weight": 0.2, "window": 30}, EXACT),
        ("diversity", "a-huge-weight-takes-strict-turns", "a weight that overflows: each group in turn, none twice",
         "diversify", {"order": [0, 1, 2, 3, 4], "score": [0.9, 0.8, 0.7, 0.6, 0.5], "group": [0, 0, 1, 1, 2],
                       "weight": 1e308, "window": 30}, EXACT),
        ("diversity", "only-the-window", "past the window the order is kept", "diversify",
         {"order": [0, 1, 2, 3], "score": [0.9, 0.8, 0.7, 0.6], "group": [0, 0, 1, 1], "weight": 0.5, "window": 2},
         EXACT),
        ("stopwords", "language-most-held", "a text's language: the one whose function words it holds most",
         "language", {"terms": GERMAN}, EXACT),
        ("stopwords", "language-tie-first", "a tie goes to the first language in LANGUAGES order", "language",
         {"terms": ["in", "budget"]}, EXACT),
        ("stopwords", "language-none", "a text holding no listed word has no language (-1)", "language",
         {"terms": ["bundestag", "haushalt", "2024"]}, EXACT),
        ("stopwords", "function-word-scores-nothing", "'in' is a function word of the German documents: no BM25 there",
         "bm25", {"query": ["budget", "debate", "in", "parliament"],
                  "docs": MIXED_FEED}, CLOSE),
        ("stopwords", "function-word-matches-nothing", "a German recipe holding 'in' gets no share of the query",
         "matched", {"query": ["budget", "debate", "in", "parliament"],
                     "docs": MIXED_FEED}, CLOSE),
        ("stopwords", "same-language-trap", "'die Regierung': a German recipe holding 'die' matches nothing", "matched",
         {"query": ["die", "regierung"], "docs": [["die", "regierung", "plant", "neue", "steuern"],
                                                 ["die", "spätzle", "mit", "käse"]]}, CLOSE),
        ("stopwords", "coverage-of-content-terms", "the cover counts content terms only, held as content", "coverage",
         {"query": ["budget", "debate", "in", "parliament"], "docs": [GERMAN, ["budget", "and", "more"]]}, CLOSE),
        ("stopwords", "coverage-of-function-words-only", "a query of function words only covers 1", "coverage",
         {"query": ["in", "the"], "docs": [["haushalt"]]}, CLOSE),
        ("decay", "fresh", "1 for an interest fed now, or after now", "decay",
         {"last_view": 1000.0, "now": 1000.0}, CLOSE),
        ("decay", "ten-days", "Xayn's curve ten days on", "decay", {"last_view": 0.0, "now": 10 * day}, CLOSE),
        ("decay", "past-the-horizon", "0 at and past the horizon", "decay",
         {"last_view": 0.0, "now": 31 * day}, CLOSE),
        ("decay", "zero-horizon", "a horizon of 0 days: nothing counts", "decay",
         {"last_view": 0.0, "now": 0.0, "config": {"horizon_days": 0.0}}, CLOSE),
        ("interests", "join-or-start", "a reaction close to an interest of its polarity moves it; a far one starts "
         "another; the scores add up from their parts", "interests",
         {"reactions": reactions, "docs": docs, "now": 1_010 * day}, FLOAT32),
        ("interests", "faded", "interests past the horizon neither score nor count", "interests",
         {"reactions": reactions[:3], "docs": docs[:2], "now": 1_031.5 * day}, FLOAT32),
        ("interests", "weighted", "an interest weighs the most of the reactions it took; its similarity counts by "
         "its weight", "interests",
         {"reactions": [dict(r, weight=w) for r, w in zip(reactions, (0.3, 1.0, 0.5, 0.25, 0.25))], "docs": docs,
          "now": 1_010 * day}, FLOAT32),
        ("implicit", "likes-reads-skips", "a read weighs by its seconds; a document shown twice and never opened is "
         "a skip; liked or disliked documents are neither", "implicit",
         {"threshold": 0.67, "events": [
             {"doc_id": "a", "kind": "like", "ts": 10.0, "vector": topics[0]},
             {"doc_id": "b", "kind": "view", "ts": 11.0, "vector": topics[1], "seconds": 20.0},
             {"doc_id": "b", "kind": "view", "ts": 15.0, "vector": topics[1], "seconds": 25.0},
             {"doc_id": "c", "kind": "shown", "ts": 12.0, "vector": topics[2]},
             {"doc_id": "c", "kind": "shown", "ts": 13.0, "vector": topics[2]},
             {"doc_id": "a", "kind": "shown", "ts": 13.0, "vector": topics[0]},
             {"doc_id": "a", "kind": "shown", "ts": 14.0, "vector": topics[0]},
             {"doc_id": "d", "kind": "view", "ts": 14.0, "vector": docs[3], "seconds": 5.0},
             {"doc_id": "e", "kind": "dislike", "ts": 16.0, "vector": docs[4]},
             {"doc_id": "e", "kind": "view", "ts": 17.0, "vector": docs[4], "seconds": 90.0},
         ]}, FLOAT32),
        ("implicit", "opened-never-skipped", "a document opened, even for a glance, is no skip however often shown",
         "implicit",
         {"threshold": 0.67, "events": [
             {"doc_id": "c", "kind": "shown", "ts": 1.0, "vector": topics[2]},
             {"doc_id": "c", "kind": "view", "ts": 2.0, "vector": topics[2], "seconds": 1.0},
             {"doc_id": "c", "kind": "shown", "ts": 3.0, "vector": topics[2]},
             {"doc_id": "c", "kind": "shown", "ts": 4.0, "vector": topics[2]},
         ]}, FLOAT32),
        ("implicit", "skip-near-a-read", "a skip as close as the merge cosine to a document read never counts",
         "implicit",
         {"threshold": 0.67, "events": [
             {"doc_id": "r", "kind": "view", "ts": 1.0, "vector": topics[0], "seconds": 120.0},
             {"doc_id": "s", "kind": "shown", "ts": 2.0, "vector": _near(topics[0], rng, 0.05)},
             {"doc_id": "s", "kind": "shown", "ts": 3.0, "vector": _near(topics[0], rng, 0.05)},
             {"doc_id": "t", "kind": "shown", "ts": 2.0, "vector": topics[1]},
             {"doc_id": "t", "kind": "shown", "ts": 3.0, "vector": topics[1]},
         ]}, FLOAT32),
        ("duplicates", "one-story-in-three-languages", "the copies of a story follow the kept ones, in their order, "
         "marked with the story's best-ranked document", "fold",
         {"order": [3, 0, 4, 1, 5, 2], "threshold": 0.5, "window": 300,
          "vectors": [topics[0], _near(topics[1], rng, 0.2), _near(topics[0], rng, 0.2), topics[1],
                      _near(topics[0], rng, 0.25), topics[2]]}, EXACT),
        ("duplicates", "chains-stop-at-the-kept", "a document close only to a folded one is kept", "fold",
         {"order": [0, 1, 2], "threshold": 0.5, "window": 300,
          "vectors": [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 1.0, 0.0]]}, EXACT),
        ("duplicates", "past-the-window", "documents past the window neither fold nor are folded under; they come "
         "before the window's duplicates", "fold",
         {"order": [0, 1, 2, 3], "threshold": 0.5, "window": 2,
          "vectors": [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [1.0, 0.0]]}, EXACT),
        ("reacted", "left-out-with-its-copies", "a story the user read leaves with the copies folded under it",
         "sink",
         {"order": [0, 3, 1, 2], "reacted": [True, False, False, False], "how": "leave_out",
          "folded": [-1, -1, 0, -1], "end": [False, False, False, False]}, EXACT),
        ("reacted", "sunk-before-the-duplicates", "reacted documents after the others, duplicates last", "sink",
         {"order": [4, 2, 0, 1, 3, 5], "reacted": [False, False, True, False, True, False], "how": "sink",
          "folded": [-1, 4, -1, -1, -1, -1], "end": [False, False, False, False, False, True]}, EXACT),
        ("reacted", "left-out", "leave_out drops the reacted documents", "sink",
         {"order": [4, 2, 0, 1, 3], "reacted": [False, False, True, False, True], "how": "leave_out",
          "folded": [-1, -1, -1, -1, -1], "end": [False, False, False, False, False]}, EXACT),
        ("semantic-share", "side-by-side", "a document's interest vector: its semantic and passage vectors side by "
         "side, scaled by the square roots of the shares", "interest_vectors",
         {"semantic": _unit(rng, 2, 4), "passages": _unit(rng, 2, 3)}, FLOAT32),
        ("cold-start", "newest-first", "no interests: the newest first, unknown dates after, then input order; "
         "a wordless document last", "recency",
         {"published": [100.0, None, 300.0, 200.0, None, 400.0], "wordless": [False, False, False, False, False,
                                                                              True], "k": 60}, CLOSE),
        ("cold-start", "ties", "documents published at one time keep their input order", "recency",
         {"published": [5.0, 5.0, 5.0], "wordless": [False, False, False], "k": 60}, CLOSE),
        ("windows", "fits", "ids that fit max_length are one window", "split_windows",
         {"ids": [101, 7, 8, 9, 102], "max_length": 8, "windows": 4, "head": 0}, EXACT),
        ("windows", "equal-shares", "a long text in windows of equal share, each [CLS] ... [SEP]", "split_windows",
         {"ids": [101, *range(1000, 1013), 102], "max_length": 6, "windows": 8, "head": 0}, EXACT),
        ("windows", "past-the-last-window", "text past the last window is not read", "split_windows",
         {"ids": [101, *range(1000, 1020), 102], "max_length": 5, "windows": 2, "head": 0}, EXACT),
        ("windows", "prefix-in-each", "a prompt prefix (head) starts every window", "split_windows",
         {"ids": [101, 5, 6, *range(1000, 1010), 102], "max_length": 7, "windows": 8, "head": 2}, EXACT),
        ("checks", "rrf-k", "k of the rank fusion must be a whole number", "check",
         {"call": "ranker", "options": {"k": 0}}, EXACT),
        ("checks", "personal-weight", "a weight must be a finite number >= 0", "check",
         {"call": "ranker", "options": {"personal_weight": -0.5}}, EXACT),
        ("checks", "lexical-weight", "a weight must be a finite number >= 0", "check",
         {"call": "ranker", "options": {"lexical_weight": -0.5}}, EXACT),
        ("checks", "semantic-query-weight", "a weight must be a finite number >= 0", "check",
         {"call": "ranker", "options": {"semantic_query_weight": -0.5}}, EXACT),
        ("checks", "view-time", "one view is at most a day", "check", {"call": "view_time", "seconds": 90000},
         EXACT),
        ("checks", "id-twice", "two documents of one id cannot be told apart", "check",
         {"call": "documents", "docs": [{"id": "a", "text": "x"}, {"id": "b", "text": "y"},
                                        {"id": "a", "text": "z"}]}, EXACT),
        ("checks", "published-in-milliseconds", "a publication time after the year 9999 is milliseconds", "check",
         {"call": "documents", "docs": [{"id": "a", "text": "x", "published": 10_000_000_000_000}]}, EXACT),
    ]


def run(function: str, given: dict) -> dict:
    """A case's outcome by the Python reference: ``{"expected": ...}`` or ``{"error": words}``."""
    try:
        return {"expected": _floats(FUNCTIONS[function](given))}
    except EdgeRankerError as exc:
        return {"error": str(exc)}


def cases() -> dict[Path, dict]:
    """Each case file's path and content."""
    out = {}
    for rule, name, why, function, given, tolerance in definitions():
        case = {"rule": rule, "why": why, "function": function, "input": given, "tolerance": tolerance}
        out[CASES / rule / f"{name}.json"] = case | run(function, given)
    return out


def text(case: dict) -> str:
    return json.dumps(case, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    shutil.rmtree(CASES, ignore_errors=True)
    written = cases()
    for path, case in written.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text(case), encoding="utf-8")
    return len(written)


if __name__ == "__main__":
    print(f"{main()} cases written to {CASES}", file=sys.stdout)
