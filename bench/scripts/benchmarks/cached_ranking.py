"""Ranking a feed whose vectors and terms are cached (a feed refreshed, a search box's every keystroke), beside the
numpy floor of the same arithmetic, in one run: 1,000 and 10,000 documents, the feed (interests) and a query.

The floor is the product of the documents' interest vectors and the interests, the query's two cosines, BM25 over
the cached term index, and one sort, on one BLAS thread as the Ranker's: what no implementation of the rules can
skip. The Ranker adds its checks,
the cache look-ups, the explanation arrays, the fold of duplicates and the sink of reacted documents.

``python bench/scripts/benchmarks/cached_ranking.py [--runs 50]``: one JSON line per size, medians in ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from edge_ranker.bench.measure import LONG
from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.lexical import bm25, standardise, terms
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore
from edge_ranker.runtime.threads import one_blas_thread

QUERY = "how do small language models run on phones"


def median_ms(step, runs: int) -> float:
    step()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    return round(1000 * statistics.median(times), 2)


def run(n: int, runs: int, semantic: Encoder, relevance: Encoder) -> dict:
    rng = np.random.default_rng(n)
    words = " ".join(LONG).split()
    docs = [Document(str(i), " ".join(rng.choice(words, 24))) for i in range(n)]  # distinct texts, few duplicates
    ranker = Ranker(semantic, relevance, PreferenceStore(":memory:"))
    for d in docs[:: max(1, n // 20)][:20]:
        ranker.like(d)
    ranker.embed(docs, "semantic")
    ranker.embed(docs, "relevance")
    out = {"documents": n, "interests": sum(map(len, ranker._interests()))}
    out["feed_ms"] = median_ms(lambda: ranker.rank(docs), runs)
    out["query_ms"] = median_ms(lambda: ranker.rank(docs, query=QUERY), runs)
    texts = [d.text for d in docs]
    sem, pas = ranker.embed(docs, "semantic"), ranker.embed(docs, "relevance")
    interest = ranker.interest_vectors(texts, sem, pas)
    points = np.stack([c.point for c in ranker._interests()[0]])
    q_rel, q_sem = relevance.encode([QUERY], role="query")[0], semantic.encode([QUERY])[0]
    index, words_of_query = ranker.terms.feed(relevance, texts), terms(relevance.tokenizer, QUERY)

    def floor_feed() -> None:
        np.argsort(-(interest @ points.T).max(axis=1), kind="stable")

    def floor_query() -> None:
        personal = (interest @ points.T).max(axis=1)
        score = standardise(pas @ q_rel) + standardise(bm25(words_of_query, index)) + standardise(sem @ q_sem)
        np.argsort(-(score + personal), kind="stable")

    with one_blas_thread():  # as the Ranker ranks
        out["floor_feed_ms"] = median_ms(floor_feed, runs)
        out["floor_query_ms"] = median_ms(floor_query, runs)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    a = p.parse_args()
    semantic, relevance = Encoder.load("semantic"), Encoder.load("relevance")
    for n in a.sizes:
        print(json.dumps(run(n, a.runs, semantic, relevance)))


if __name__ == "__main__":
    main()
