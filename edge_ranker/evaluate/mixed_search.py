"""Search in a feed that mixes languages: every answer competes with documents in the query's language.

Built from FLORES-200 devtest articles (``datasets.articles``, which no recipe reads): in each of ``LAYOUTS`` seeded
layouts, every article's body is a document in a random one of the 10 languages and its query (its cut first
sentence) is asked in a random one, so about one answer in ten is in the query's language and the others compete
with the documents that are. nDCG@10 of the one relevant body, split by answers in the query's language and in
another, for:

- ``empty``: ``Ranker.rank(docs, query)`` on an empty store;
- ``unrelated``: the same with a history, ``LIKES`` liked and ``DISLIKES`` disliked articles of the feed, none of
  them the answer (``kept``: its share of ``empty``'s nDCG@10);
- ``baseline``: a given encoder's raw cosine (its query and passage roles) on the same documents; the CLI's default
  is multilingual-e5-small, a retrieval model of about 100 languages and 118M parameters.

*Traps*: a liked document that shares words with the query, every one of them among its language's
``TRAP_WORDS`` most frequent words (wordfreq; a definition apart from the runtime's own list), while the answer is
in the query's language. Counted: the traps ranked above the answer with the like, and of those, the ones the
empty store ranks below it (what the like alone carried over the answer).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from edge_ranker.datasets.articles import load_articles
from edge_ranker.datasets.topics import SIB_LANGS
from edge_ranker.evaluate.personal import ndcg_at
from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.lexical import terms

if TYPE_CHECKING:
    from edge_ranker.runtime.encoder import Encoder
    from edge_ranker.runtime.ranker import Ranker

LAYOUTS = 3
LIKES, DISLIKES = 5, 3
TRAP_WORDS = 100


def _ndcg(ids: list[str], answer: int) -> float:
    return ndcg_at(np.array([i == str(answer) for i in ids], dtype=np.float64))


def _summary(scores: list[float], same: np.ndarray) -> dict[str, float]:
    v = np.array(scores)
    return {
        "all": float(v.mean()),
        "same_language": float(v[same].mean()) if same.any() else float("nan"),
        "other_language": float(v[~same].mean()) if (~same).any() else float("nan"),
    }


def _frequent(langs: list[str]) -> dict[str, set[str]]:
    try:
        import wordfreq
    except ImportError as exc:
        from edge_ranker.errors import EdgeRankerError

        raise EdgeRankerError("--mixed-search's traps need wordfreq: pip install wordfreq==3.1.1") from exc
    return {lang: set(wordfreq.top_n_list(lang, TRAP_WORDS)) for lang in langs}


def evaluate_mixed_search(
    semantic: Encoder, relevance: Encoder, data_root: str | Path, baseline: object | None = None, layouts: int = LAYOUTS
) -> dict:
    """``{"empty": ..., "unrelated": ..., "baseline": ..., "kept": ..., "traps": ...}``, each nDCG@10 split by the
    answer's language, over ``layouts`` seeded layouts of the FLORES-200 devtest articles; ``baseline``: an encoder
    (``encode(texts, role)``) whose raw cosine is measured beside the Ranker, or None."""
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    langs = list(SIB_LANGS)
    articles = load_articles(data_root, langs)
    n = len(articles.bodies[langs[0]])
    frequent = _frequent(langs)
    runs: dict[str, list[float]] = {"empty": [], "unrelated": [], "baseline": []}
    same_all: list[bool] = []
    unrelated_same: list[bool] = []
    traps = {"traps": 0, "above_answer": 0, "carried_by_the_like": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for layout in tqdm(range(layouts), desc="mixed search", leave=False):
            rng = np.random.default_rng(layout)
            doc_lang, query_lang = rng.integers(0, len(langs), n), rng.integers(0, len(langs), n)
            docs = [Document(str(i), articles.bodies[langs[doc_lang[i]]][i]) for i in range(n)]
            queries = [articles.queries[langs[query_lang[i]]][i] for i in range(n)]
            same = doc_lang == query_lang
            same_all += same.tolist()
            empty = Ranker(semantic, relevance, PreferenceStore(Path(tmp) / f"empty{layout}.sqlite"))
            history = Ranker(semantic, relevance, PreferenceStore(Path(tmp) / f"history{layout}.sqlite"))
            history.vectors, history.terms = empty.vectors, empty.terms  # one embedding of the feed
            reacted = rng.choice(n, LIKES + DISLIKES, replace=False)
            for i in reacted[:LIKES]:
                history.like(docs[i])
            for i in reacted[LIKES:]:
                history.dislike(docs[i])
            first: dict[int, list[str]] = {}
            for q, query in enumerate(queries):
                first[q] = empty.rank(docs, query=query).ids
                runs["empty"].append(_ndcg(first[q], q))
                if q not in reacted:
                    runs["unrelated"].append(_ndcg(history.rank(docs, query=query).ids, q))
                    unrelated_same.append(bool(same[q]))
            for trap, q in _trap_queries(empty, docs, queries, same, query_lang, doc_lang, langs, frequent, rng):
                traps["traps"] += 1
                with_like = Ranker(semantic, relevance, PreferenceStore(Path(tmp) / f"trap{layout}-{trap}.sqlite"))
                with_like.vectors, with_like.terms = empty.vectors, empty.terms
                with_like.like(docs[trap])
                answer = str(q)
                ids = with_like.rank(docs, query=queries[q]).ids
                if ids.index(str(trap)) < ids.index(answer):
                    traps["above_answer"] += 1
                    before = first[q]
                    traps["carried_by_the_like"] += int(before.index(str(trap)) > before.index(answer))
                with_like.store.close()
            if baseline is not None:
                d = baseline.encode([doc.text for doc in docs], role="passage")
                qv = baseline.encode(queries, role="query")
                d = d / np.linalg.norm(d, axis=1, keepdims=True)
                qv = qv / np.linalg.norm(qv, axis=1, keepdims=True)
                for q, row in enumerate(qv @ d.T):
                    order = np.argsort(-row, kind="stable")
                    runs["baseline"].append(ndcg_at((order == q).astype(np.float64)))
            empty.store.close()
            history.store.close()
    same = np.array(same_all)
    out = {
        "documents": n,
        "layouts": layouts,
        "queries": len(same),
        "same_language_queries": int(same.sum()),
        "empty": _summary(runs["empty"], same),
        "unrelated": _summary(runs["unrelated"], np.array(unrelated_same)),
        "traps": traps,
    }
    if runs["baseline"]:
        out["baseline"] = _summary(runs["baseline"], same)
    out["kept"] = out["unrelated"]["all"] / out["empty"]["all"] if out["empty"]["all"] else float("nan")
    return out


def _trap_queries(
    ranker: Ranker,
    docs: list[Document],
    queries: list[str],
    same: np.ndarray,
    query_lang: np.ndarray,
    doc_lang: np.ndarray,
    langs: list[str],
    frequent: dict[str, set[str]],
    rng: np.random.Generator,
) -> list[tuple[int, int]]:
    """(trap document, query) index pairs: for each query answered in its own language, one document of that language,
    not the answer, that shares words with the query and only frequent ones (drawn at random among such)."""
    tok = ranker.relevance.tokenizer
    words = [set(terms(tok, d.text)) for d in docs]
    out = []
    for q in np.flatnonzero(same):
        lang = langs[query_lang[q]]
        asked = set(terms(tok, queries[q]))
        picks = [
            d
            for d in range(len(docs))
            if d != q and doc_lang[d] == query_lang[q] and (shared := asked & words[d]) and shared <= frequent[lang]
        ]
        if picks:
            out.append((int(rng.choice(picks)), int(q)))
    return out
