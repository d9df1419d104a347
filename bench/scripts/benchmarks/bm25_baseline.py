"""BM25 on the same retrieval samples and metrics as `edge-ranker eval --retrieval`: the zero-megabyte lexical
ranker every learnt one should be read against (bench/experiments/relevance-losses.md, "BM25 beside the student").

BM25 (Lucene's variant, k1 1.2, b 0.75, as the runtime's `edge_ranker.runtime.lexical`) from the `bm25s`
package (`pip install bm25s`; a bench-only tool, not a project dependency), with bm25s's own tokens:
lower-cased words of 2+ characters, no stop words and no stemming, so every language is treated alike. (The
runtime's BM25 splits words with the model's tokenizer instead: `edge-ranker eval --lexical-weight`.)

Usage: python bench/scripts/benchmarks/bm25_baseline.py [--sets scifact squad-it wikiqa ...] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json

import bm25s
import numpy as np

from edge_ranker.datasets.retrieval import RetrievalSet, load_retrieval
from edge_ranker.evaluate.metrics import retrieval_metrics
from edge_ranker.paths import data_root


def bm25_run(ds: RetrievalSet) -> dict[str, dict[str, float]]:
    """Each query's 100 best documents by BM25 score, the shape `retrieval_run` gives."""
    doc_ids = list(ds.corpus)
    index = bm25s.BM25(k1=1.2, b=0.75)
    index.index(
        bm25s.tokenize([ds.corpus[d] for d in doc_ids], stopwords=None, show_progress=False), show_progress=False
    )
    run = {}
    for qid, text in ds.queries.items():
        tokens = bm25s.tokenize([text], stopwords=None, return_ids=False, show_progress=False)[0]
        scores = index.get_scores(tokens)
        top = np.argsort(-scores, kind="stable")[:100]
        run[qid] = {doc_ids[j]: float(scores[j]) for j in top}
    return run


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--sets", nargs="+", default=["scifact-dev", "squad-it-dev", "wikiqa-dev", "scifact", "squad-it", "wikiqa"]
    )
    p.add_argument("--data", help="data folder (default $EDGE_RANKER_DATA)")
    p.add_argument("--out", help="write {set: metrics} here as JSON")
    a = p.parse_args()
    root = data_root(a.data)
    out = {}
    for name in a.sets:
        ds = load_retrieval(name, root)
        out[name] = retrieval_metrics(bm25_run(ds), ds.qrels) | {"queries": len(ds.queries), "docs": len(ds.corpus)}
        print(name, {k: round(v, 4) if isinstance(v, float) else v for k, v in out[name].items()})
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
