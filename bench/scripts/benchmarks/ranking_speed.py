"""Runtime benchmark of what an app does per request: encode a query, rank an already-embedded (and already
split into terms) feed against stored interests and a query, with and without the query's BM25 and semantic
cosine, and embed new documents. ``python bench/scripts/benchmarks/ranking_speed.py``."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from edge_ranker.bench.measure import LONG, latency
from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore


def run(
    semantic: str = "semantic",
    relevance: str = "relevance",
    n_docs: int = 1000,
    n_interests: int = 100,
    threads: int = 1,
) -> dict:
    sem, rel = Encoder.load(semantic, threads=threads), Encoder.load(relevance, threads=threads)
    query = "how do small language models run on phones"  # 16 tokens with the relevance prefix
    out: dict = {"threads": threads, "query_tokens": len(rel.tokenize([query], role="query")[0])}
    out["query_encode_ms"] = latency(lambda: rel.encode([query], role="query"), 500, warmup=20)
    rng = np.random.default_rng(0)
    docs = [Document(str(i), f"{LONG[i % len(LONG)]} item {i}") for i in range(n_docs)]
    with tempfile.TemporaryDirectory() as tmp:
        store = PreferenceStore(Path(tmp) / "bench.sqlite")
        ranker = Ranker(sem, rel, store)
        t0 = time.perf_counter()
        ranker.embed(docs, "semantic")
        ranker.embed(docs, "relevance")
        out["embed_docs_per_s"] = 2 * n_docs / (time.perf_counter() - t0)  # both models, news-length texts
        out["doc_tokens_mean"] = float(np.mean([len(x) for x in sem.tokenize([d.text for d in docs[:50]])]))
        dim = ranker.interest_vectors(["x"]).shape[1]  # both models' vectors side by side
        for i in range(n_interests):  # spread-out random interests: each creates its own center
            reaction = "like" if i % 4 else "dislike"
            store.space(ranker.model_key).add_feedback(f"h{i}", rng.normal(size=dim), reaction)
        pos, neg = store.space(ranker.model_key).interests()
        out["interests"] = len(pos) + len(neg)
        out["query_coverage"] = ranker.rank(docs, query=query).query_coverage  # < 1: the semantic cosine joins
        out["rank_ms"] = latency(lambda: ranker.rank(docs, query=query), 50, warmup=3)
        out["rank_without_query_ms"] = latency(lambda: ranker.rank(docs), 50, warmup=3)
        without_semantic = Ranker(sem, rel, store, semantic_query_weight=0.0)
        without_semantic.vectors, without_semantic.terms = ranker.vectors, ranker.terms  # the same embedded feed
        out["rank_without_semantic_query_ms"] = latency(lambda: without_semantic.rank(docs, query=query), 50, warmup=3)
        cosine_only = Ranker(sem, rel, store, lexical_weight=0.0, semantic_query_weight=0.0)
        cosine_only.vectors = ranker.vectors  # the same embedded feed: the relevance cosine alone
        out["rank_cosine_only_ms"] = latency(lambda: cosine_only.rank(docs, query=query), 50, warmup=3)
        store.close()
    return out


if __name__ == "__main__":
    res = run(*sys.argv[1:3])
    print(json.dumps(res, indent=2))
