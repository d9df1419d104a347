"""Paired per-query nDCG@10 differences between runs, with a bootstrap interval over queries: whether a change
that moves a small dev set by a few points is more than the choice of its queries
(bench/experiments/vocabularies.md, "A 4-bit word table and a 100k vocabulary").

Usage: python bench/scripts/experiments/paired_ndcg.py BASE:NEW [BASE:NEW ...] --sets wikiqa-dev scifact [--cache CACHE]
Each BASE:NEW pair is two encoders (student folders, model folders, ...) trained alike but for one change,
usually at the same seed; the interval is for the mean over the pairs of NEW minus BASE.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytrec_eval

from edge_ranker.datasets.retrieval import load_retrieval
from edge_ranker.evaluate.encoders import resolve_encoder
from edge_ranker.evaluate.retrieval import retrieval_run
from edge_ranker.paths import cache_root, data_root


def per_query_ndcg(spec: str, ds, cache) -> np.ndarray:
    judged = {q: {d: 1 for d in rel} for q, rel in ds.qrels.items() if rel}
    run = retrieval_run(resolve_encoder(spec, cache), ds)
    top10 = {q: dict(sorted(run[q].items(), key=lambda kv: -kv[1])[:10]) for q in judged}
    res = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10"}).evaluate(top10)
    return 100 * np.array([res[q]["ndcg_cut_10"] for q in sorted(judged)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="+", help="BASE:NEW")
    ap.add_argument("--sets", nargs="+", required=True)
    ap.add_argument("--cache")
    ap.add_argument("--data")
    ap.add_argument("--resamples", type=int, default=10_000)
    a = ap.parse_args()
    pairs = [tuple(p.split(":", 1)) for p in a.pairs]
    out = {}
    for name in a.sets:
        ds = load_retrieval(name, data_root(a.data))
        scores = {m: per_query_ndcg(m, ds, cache_root(a.cache)) for m in {m for p in pairs for m in p}}
        per_pair = [scores[new] - scores[base] for base, new in pairs]
        diffs = np.mean(per_pair, axis=0)
        rng = np.random.default_rng(0)
        boots = [diffs[rng.integers(0, len(diffs), len(diffs))].mean() for _ in range(a.resamples)]
        out[name] = {
            "queries": len(diffs),
            "per_pair": [round(float(d.mean()), 2) for d in per_pair],
            "mean": round(float(diffs.mean()), 2),
            "ci95": [round(float(x), 2) for x in np.percentile(boots, [2.5, 97.5])],
        }
        print(name, json.dumps(out[name]), flush=True)


if __name__ == "__main__":
    main()
