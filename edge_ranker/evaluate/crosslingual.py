"""Search across languages, measured: a query in one language over news articles in another.

Built from FLORES-200 devtest, which the project never trains on: its 1,012 sentences come from 281 Wikinews,
Wikijunior and Wikivoyage articles, 2-6 consecutive sentences each, translated into every language. An article's
first sentence, cut to its first ``QUERY_WORDS`` words, is the query (what a reader types about the story); the
rest of the article, in the other language, is the one relevant document among all the articles' bodies. Query
and document share no language, so BM25 cannot carry the query: the model has to. Runtime model folders are
scored by cosine alone and through ``Ranker.rank(docs, query=...)``, the path users run: the model's cosine, BM25
and the cosine of the semantic model the ranker holds beside it (``fusion.query_scores``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from edge_ranker.datasets.articles import Articles, load_articles
from edge_ranker.datasets.topics import SIB_LANGS
from edge_ranker.evaluate.encoders import runtime_model
from edge_ranker.evaluate.personal import ndcg_at

if TYPE_CHECKING:
    from edge_ranker.runtime.encoder import Encoder

DIRECTIONS = [(x, "en") for x in SIB_LANGS if x != "en"] + [("en", x) for x in SIB_LANGS if x != "en"]
# The same search within each language: how much of a model's loss across languages is the crossing itself.
WITHIN = [(x, x) for x in SIB_LANGS]


def _ndcg(scores: np.ndarray) -> float:
    """Mean nDCG@10 of a (queries, documents) score matrix whose relevant documents are on the diagonal."""
    order = np.argsort(-scores, axis=1, kind="stable")
    return float(np.mean([ndcg_at((order[q] == q).astype(np.float64)) for q in range(scores.shape[0])]))


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def evaluate_search(
    encoders: dict[str, object],
    data_root: str | Path,
    directions: list[tuple[str, str]] | None = None,
    semantic: Encoder | None = None,
) -> dict:
    """``{"qq->dd": {name: {"cosine": nDCG@10, "ranker": nDCG@10}}, "avg": {...}, "within": {...}}`` over
    ``directions`` (default: ``DIRECTIONS`` and ``WITHIN``): "avg" is the mean across languages, "within" the mean
    of each language over itself; ``semantic``: the runtime ``Encoder`` each ranker holds as its semantic model
    (default: the model itself)."""
    directions = directions or DIRECTIONS + WITHIN
    langs = sorted({x for d in directions for x in d})
    articles = load_articles(data_root, langs)
    out: dict = {}
    for name, enc in encoders.items():
        role = "query" if getattr(enc, "roles", ["query"]) else None
        q = {x: _unit(enc.encode(articles.queries[x], role=role)) for x in {d[0] for d in directions}}
        d = {x: _unit(enc.encode(articles.bodies[x], role=role and "passage")) for x in {d[1] for d in directions}}
        model = runtime_model(enc)
        ranked = _through_ranker(model, semantic or model, articles, directions) if model is not None else {}
        for qa, da in directions:
            row = out.setdefault(f"{qa}->{da}", {}).setdefault(name, {})
            row["cosine"] = _ndcg(q[qa] @ d[da].T)
            if ranked:
                row["ranker"] = ranked[(qa, da)]
    first = out[f"{directions[0][0]}->{directions[0][1]}"]
    for key, pairs in (
        ("avg", [d for d in directions if d[0] != d[1]]),
        ("within", [d for d in directions if d[0] == d[1]]),
    ):
        if pairs:
            out[key] = {
                name: {way: float(np.mean([out[f"{a}->{b}"][name][way] for a, b in pairs])) for way in ways}
                for name, ways in first.items()
            }
    return out


def _through_ranker(
    model: Encoder, semantic: Encoder, articles: Articles, directions: list[tuple[str, str]]
) -> dict[tuple[str, str], float]:
    """Each query ranked by ``Ranker.rank`` over the other language's bodies, with no stored interests, ``model``
    as the relevance model beside ``semantic``; one ranker for every direction, so each language's bodies are
    embedded once."""
    from edge_ranker.runtime.documents import Document
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    out = {}
    with tempfile.TemporaryDirectory() as tmp, PreferenceStore(Path(tmp) / "search.sqlite") as store:
        ranker = Ranker(semantic, model, store)
        for qa, da in directions:
            docs = [Document(str(i), b) for i, b in enumerate(articles.bodies[da])]
            scores = []
            for qi, query in enumerate(articles.queries[qa]):
                ranked = ranker.rank(docs, query=query).ids
                scores.append(ndcg_at(np.array([r == str(qi) for r in ranked], dtype=np.float64)))
            out[(qa, da)] = float(np.mean(scores))
    return out
