"""Would the semantic model's cosine help the runtime's query score? FLORES-200 articles as ``eval --search`` builds
them (a first sentence's 12 words query the other articles' bodies), across languages (9 languages to English and
back) and within each of the 10, and the monolingual retrieval sets (wikiqa-dev, never trained on, and the test
samples of SciFact, SQuAD-it and WikiQA): nDCG@10 of the relevance cosine with BM25 (what ``Ranker.rank`` does with
a query today), the semantic cosine with BM25, and both cosines standardised and summed (``+ W x semantic``) with
BM25. An offline measurement on the shipped models: nothing in the runtime changes.
``python bench/scripts/search_fusion.py --data DIR``"""

from __future__ import annotations

import argparse
import json

import numpy as np
from tokenizers import Tokenizer

from edge_ranker.datasets.articles import load_articles
from edge_ranker.datasets.retrieval import load_retrieval
from edge_ranker.datasets.topics import SIB_LANGS
from edge_ranker.evaluate.crosslingual import DIRECTIONS, _ndcg, _unit
from edge_ranker.evaluate.retrieval import cosine_scores, fused_scores, lexical_scores, scores_metrics
from edge_ranker.paths import data_root
from edge_ranker.runtime.encoder import Encoder, resolve_model_path
from edge_ranker.runtime.lexical import Bag, Feed, bm25, query_scores, standardise, terms

WEIGHTS = (0.5, 1.0, 2.0)
RETRIEVAL = ("wikiqa-dev", "scifact", "squad-it", "wikiqa")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="the data folder (default $EDGE_RANKER_DATA)")
    a = parser.parse_args()
    langs = list(SIB_LANGS)
    articles = load_articles(data_root(a.data), langs)
    relevance, semantic = Encoder.load("relevance"), Encoder.load("semantic")
    tok = Tokenizer.from_file(str(resolve_model_path("relevance") / "tokenizer.json"))
    rq = {x: _unit(relevance.encode(articles.queries[x], role="query")) for x in langs}
    rd = {x: _unit(relevance.encode(articles.bodies[x], role="passage")) for x in langs}
    sq = {x: _unit(semantic.encode(articles.queries[x])) for x in langs}
    sd = {x: _unit(semantic.encode(articles.bodies[x])) for x in langs}
    feeds = {x: Feed.of([Bag.of(terms(tok, b)) for b in articles.bodies[x]]) for x in langs}
    within = [(x, x) for x in langs]
    out: dict[str, dict[str, float]] = {}
    for name, directions in (("across", DIRECTIONS), ("within", within)):
        rows: dict[str, list[float]] = {}
        for qa, da in directions:
            words = np.stack([bm25(terms(tok, q), feeds[da]) for q in articles.queries[qa]])
            rel, sem = rq[qa] @ rd[da].T, sq[qa] @ sd[da].T
            fused = {
                "relevance": np.stack([query_scores(c, w, 1.0) for c, w in zip(rel, words)]),
                "semantic": np.stack([query_scores(c, w, 1.0) for c, w in zip(sem, words)]),
            }
            for weight in WEIGHTS:
                fused[f"relevance + {weight:g} x semantic"] = np.stack(
                    [query_scores(c, w, 1.0) + weight * standardise(s) for c, w, s in zip(rel, words, sem)]
                )
            for key, scores in fused.items():
                rows.setdefault(key, []).append(_ndcg(scores))
        out[name] = {key: round(float(np.mean(v)), 3) for key, v in rows.items()}
    for name in RETRIEVAL:
        ds = load_retrieval(name, data_root(a.data))
        words = lexical_scores(ds)
        rel, sem = cosine_scores(_Role(relevance), ds), cosine_scores(_Role(semantic), ds)
        fused = {"relevance": fused_scores(rel, words, 1.0), "semantic": fused_scores(sem, words, 1.0)}
        for weight in WEIGHTS:
            fused[f"relevance + {weight:g} x semantic"] = fused_scores(rel, words, 1.0) + weight * np.stack(
                [standardise(s) for s in sem]
            )
        out[name] = {key: round(scores_metrics(s, ds)["ndcg@10"] / 100, 3) for key, s in fused.items()}
    print(json.dumps(out, indent=2))


class _Role:
    """An encoder that drops the role where the model has none (the semantic model)."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder

    def encode(self, texts: list[str], role: str) -> np.ndarray:
        return self.encoder.encode(texts, role=role if self.encoder.roles else None)


if __name__ == "__main__":
    main()
