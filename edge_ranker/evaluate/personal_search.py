"""The two jobs joined: a user with a history searches.

Every user who searches has likes and dislikes stored, so search is measured through ``Ranker.rank(docs, query)``
with a history in the store, against the baselines in the same run: ``query`` (the same query on an empty store),
``interests`` (the history alone, no query) and ``rrf`` (the two orders fused by reciprocal rank, k 60, the query
at weight 1 and the interests at 0.5: the rule the Ranker used before). ``ranker`` is the Ranker as shipped, and
``ranker@W`` the Ranker at ``personal_weight`` W. No test split is read: the QA sets' dev splits, SIB-200's dev
split by default (its train split, which no recipe reads, on request):

- *robustness*: a history about other topics must not cost the search. Users like 5 SIB-200 items of one topic and
  dislike 3 of another in the query's language, then search the QA dev sets (WikiQA and SciFact in English,
  SQuAD-it in Italian) and, across languages, SIB-200 itself: the first ``QUERY_WORDS`` words of an item in one
  language find the item in another among the split's items (``ACROSS_QUERIES`` items per direction), the user's
  topics both other than the item's. ``kept`` is each system's nDCG@10 as a share of ``query``'s.
- *usefulness*: a history that favours one topic should lift what the user likes among what answers the query.
  The query is one word that ``MIN_MATCHES`` or more of the SIB-200 items hold (at most ``MAX_SHARE`` of them),
  of the liked topic and of others, and a content word (no function word of its language, spec/rules/stopwords.md:
  nobody searches for "with", and no item answers it); graded relevance: 2 = holds the word and is of the liked
  topic, 1 = holds the word, 0 = lacks it. Settings: ``mono`` (English), ``within`` (history and search in one
  random language) and ``cross`` (history in one language, search in another). ``lift`` is each system's graded
  nDCG@10 less ``query``'s.

Items are single sentences by default; ``item_sentences`` K joins K sentences of one topic into an article-length
item (``as_articles``), as a news feed's items are: one sentence says little of its topic, so the interests that
order the answers are weaker on sentences than on articles. SIB-200 dev (99 sentences, 8 of geography) is too small
for articles; its train split makes 173 items of 4 sentences.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from edge_ranker.datasets.retrieval import load_retrieval
from edge_ranker.datasets.topics import Topics, as_articles, load_topics
from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.fusion import RRF_K, rrf
from edge_ranker.runtime.lexical import terms
from edge_ranker.runtime.stopwords import function_words

if TYPE_CHECKING:
    from edge_ranker.runtime.encoder import Encoder
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.ranking import Ranking

QA_SETS = {"wikiqa-dev": "en", "scifact-dev": "en", "squad-it-dev": "it"}
QUERY_WORDS = 6  # an item's first words, as a reader types them
ACROSS_QUERIES = 100  # items searched per direction across languages (a seeded sample of a larger split)
LIKES, DISLIKES, TOP = 5, 3, 10
TOPICS = 3  # a user's liked and disliked topics, and across languages the searched item's
MIN_MATCHES, MAX_SHARE = 3, 0.1
SETTINGS = ("mono", "within", "cross")
USERS = 200  # simulated users per usefulness setting
# the rule before: reciprocal-rank fusion, the query's order at weight 1 and the interests' at 0.5
RRF_QUERY, RRF_PERSONAL = 1.0, 0.5


def graded_ndcg(gains: np.ndarray, k: int = TOP) -> float:
    """nDCG@k of gains already in ranked order (linear gains), against the same gains sorted best first."""
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    top = gains[:k]
    ideal = np.sort(gains)[::-1][:k]
    best = float((ideal * disc[: ideal.size]).sum())
    return float((top * disc[: top.size]).sum()) / best if best else 0.0


@dataclass(frozen=True)
class History:
    """A simulated user's reactions: SIB-200 items liked and disliked, in one language."""

    lang: str
    liked: str
    disliked: str
    likes: tuple[int, ...]
    dislikes: tuple[int, ...]

    @property
    def items(self) -> set[int]:
        return {*self.likes, *self.dislikes}


class Users:
    """Simulated users drawn with a seeded history, each searching through a Ranker on a new store of its own, and
    one Ranker on an empty store for the query alone."""

    def __init__(self, semantic: Encoder, relevance: Encoder, topics: Topics, folder: Path, seed: int) -> None:
        self.semantic, self.relevance, self.topics, self.folder = semantic, relevance, topics, folder
        self.rng = np.random.default_rng(seed)
        self.names = sorted(set(topics.topics))
        self.by_topic = {t: np.flatnonzero(np.array(topics.topics) == t) for t in self.names}
        self._made = 0
        self.empty = self._ranker("empty")

    def _ranker(self, name: str) -> Ranker:
        """A Ranker on a new store in the folder."""
        from edge_ranker.runtime.ranker import Ranker
        from edge_ranker.runtime.store import PreferenceStore

        return Ranker(self.semantic, self.relevance, PreferenceStore(self.folder / f"{name}.sqlite"))

    def draw(self, lang: str, avoid: set[str] = frozenset()) -> History:
        """A user of ``lang`` who likes one topic and dislikes another, neither in ``avoid``."""
        liked, disliked = self.rng.choice([t for t in self.names if t not in avoid], 2, replace=False)
        likes = self.rng.choice(self.by_topic[liked], LIKES, replace=False)
        dislikes = self.rng.choice(self.by_topic[disliked], DISLIKES, replace=False)
        return History(lang, str(liked), str(disliked), tuple(map(int, likes)), tuple(map(int, dislikes)))

    def ranker(self, user: History) -> Ranker:
        """A new Ranker on a new store holding ``user``'s reactions (the caller closes its store)."""
        from edge_ranker.runtime.documents import Document

        self._made += 1
        r = self._ranker(f"user{self._made}")
        for reaction, items in (("like", user.likes), ("dislike", user.dislikes)):
            for i in items:
                r.feedback(Document(f"h{i}", self.topics.texts[user.lang][i]), reaction)
        return r


class Corpus:
    """Documents to search, with both models' vectors computed once."""

    def __init__(self, users: Users, texts: list[str]) -> None:
        from edge_ranker.runtime.documents import Document

        self.docs = [Document(str(i), t) for i, t in enumerate(texts)]
        self.semantic = users.semantic.encode(texts)
        self.passages = users.relevance.encode(texts, role="passage")

    def rank(self, ranker: Ranker, keep: np.ndarray, query: str | None, weight: float | None = None) -> Ranking:
        """The Ranker's order of the corpus by its scores: every item is a story of its own, so a fold could only be
        a wrong one (the fold and the sink, which come after the scores, have their own benchmarks)."""
        docs = [self.docs[i] for i in keep]
        return ranker.rank(
            docs,
            query,
            semantic_vectors=self.semantic[keep],
            passage_vectors=self.passages[keep],
            personal_weight=weight,
            duplicates="keep",
            reacted="keep",
        )


def _systems(
    corpus: Corpus, users: Users, user: History, keep: np.ndarray, query: str, strengths: tuple[float, ...]
) -> dict[str, list[int]]:
    """Each system's order of the documents ``keep`` (positions in ``keep``) for ``user`` searching ``query``."""
    ranker = users.ranker(user)
    try:
        return _orders(corpus, users, ranker, keep, query, strengths)
    finally:
        ranker.store.close()


def _orders(
    corpus: Corpus, users: Users, ranker: Ranker, keep: np.ndarray, query: str, strengths: tuple[float, ...]
) -> dict[str, list[int]]:
    with_history = corpus.rank(ranker, keep, query)
    position = {d: i for i, d in enumerate(str(k) for k in keep)}
    personal, query_score = np.zeros(keep.size), np.zeros(keep.size)
    for r in with_history:
        personal[position[r.id]], query_score[position[r.id]] = r.personal_score, r.query_score
    fused = RRF_QUERY * rrf(query_score, RRF_K) + RRF_PERSONAL * rrf(personal, RRF_K)
    orders = {
        "query": [position[d] for d in corpus.rank(users.empty, keep, query).ids],
        "interests": [position[d] for d in corpus.rank(ranker, keep, None).ids],
        "rrf": list(np.argsort(-fused, kind="stable")),
        "ranker": [position[d] for d in with_history.ids],
    }
    for w in strengths:
        orders[f"ranker@{w:g}"] = [position[d] for d in corpus.rank(ranker, keep, query, w).ids]
    return orders


def _mean(scores: dict[str, list[float]]) -> dict[str, float]:
    return {name: float(np.mean(v)) for name, v in scores.items()}


@dataclass(frozen=True)
class Search:
    """One search of the benchmark: where it counts (a QA set, "across" or a usefulness setting), the user, the
    documents searched (positions ``keep`` in ``corpus``), the query and each searched document's graded gain."""

    group: str
    corpus: Corpus
    user: History
    keep: np.ndarray
    query: str
    gains: np.ndarray


def robustness_searches(
    users: Users, data_root: str | Path, directions: list[tuple[str, str]], qa_sets: dict[str, str]
) -> Iterator[Search]:
    """The robustness part's searches, each user drawn as it comes: each of ``qa_sets`` (name: language), then
    SIB-200 across ``directions``."""
    for name, lang in qa_sets.items():
        ds = load_retrieval(name, data_root)
        corpus = Corpus(users, list(ds.corpus.values()))
        ids, keep = list(ds.corpus), np.arange(len(ds.corpus))
        for qid, query in tqdm(ds.queries.items(), desc=name, leave=False):
            relevant = np.array([ids[i] in ds.qrels[qid] for i in keep], float)
            yield Search(name, corpus, users.draw(lang), keep, query, relevant)
    topics = users.topics
    corpora = {b: Corpus(users, topics.texts[b]) for b in sorted({b for _, b in directions})}
    n = len(topics.topics)
    for a, b in tqdm(directions, desc="across languages", leave=False):
        for item in sorted(users.rng.choice(n, min(n, ACROSS_QUERIES), replace=False)):
            user = users.draw(a, avoid={topics.topics[item]})
            keep = np.setdiff1d(np.arange(n), sorted(user.items))
            query = " ".join(topics.texts[a][item].split()[:QUERY_WORDS])
            yield Search("across", corpora[b], user, keep, query, (keep == item).astype(float))


def usefulness_searches(users: Users, settings: tuple[str, ...], per_setting: int) -> Iterator[Search]:
    """The usefulness part's searches: ``per_setting`` users per setting, less those whose documents hold no fitting
    query word."""
    topics, rng = users.topics, users.rng
    labels = np.array(topics.topics)
    langs = sorted(topics.texts)
    bags = {lang: [set(terms(users.relevance.tokenizer, t)) for t in topics.texts[lang]] for lang in langs}
    corpora = {lang: Corpus(users, topics.texts[lang]) for lang in langs}
    function = {lang: set(words) for lang, words in function_words().items()}
    for setting in settings:
        for _ in tqdm(range(per_setting), desc=f"usefulness {setting}", leave=False):
            home = "en" if setting == "mono" else str(rng.choice(langs))
            away = str(rng.choice([x for x in langs if x != home])) if setting == "cross" else home
            user = users.draw(home)
            keep = np.setdiff1d(np.arange(labels.size), sorted(user.items))
            word = _query_word(bags[away], keep, labels, user.liked, rng, function.get(away, set()))
            if word is not None:
                has = np.array([word in bags[away][i] for i in keep], float)
                yield Search(setting, corpora[away], user, keep, word, has * (1 + (labels[keep] == user.liked)))


def _scores(users: Users, searches: Iterator[Search], strengths: tuple[float, ...]) -> dict[str, dict[str, list]]:
    """Each group's graded nDCG@10 of each system, search by search."""
    out: dict[str, dict[str, list]] = {}
    for s in searches:
        for system, order in _systems(s.corpus, users, s.user, s.keep, s.query, strengths).items():
            out.setdefault(s.group, {}).setdefault(system, []).append(graded_ndcg(s.gains[order]))
    return out


def robustness(
    users: Users,
    data_root: str | Path,
    directions: list[tuple[str, str]],
    strengths: tuple[float, ...],
    qa_sets: dict[str, str],
) -> dict:
    """nDCG@10 of each system on each of ``qa_sets`` (name: language) and, averaged, on SIB-200 across
    ``directions``; and ``kept``."""
    scores = _scores(users, robustness_searches(users, data_root, directions, qa_sets), strengths)
    sets = [*qa_sets, "across"]
    out: dict = {s: _mean(scores.get(s, {})) for s in sets}
    out["kept"] = {system: {s: out[s][system] / max(out[s]["query"], 1e-12) for s in sets} for system in out["across"]}
    return out


def usefulness(users: Users, settings: tuple[str, ...], per_setting: int, strengths: tuple[float, ...]) -> dict:
    """Graded nDCG@10 of each system in each setting, over ``per_setting`` users, and each system's ``lift``."""
    scores = _scores(users, usefulness_searches(users, settings, per_setting), strengths)
    out: dict = {s: _mean(scores.get(s, {})) | {"users": len(scores.get(s, {}).get("query", []))} for s in settings}
    done = [s for s in settings if out[s]["users"]]
    systems = [k for k in out[done[0]] if k != "users"] if done else []
    out["lift"] = {system: float(np.mean([out[s][system] - out[s]["query"] for s in done])) for system in systems}
    return out


def _query_word(
    bags: list[set[str]],
    keep: np.ndarray,
    labels: np.ndarray,
    liked: str,
    rng: np.random.Generator,
    function: set[str],
) -> str | None:
    """A seeded word of at least 4 characters, not in ``function``, that ``MIN_MATCHES`` to ``MAX_SHARE`` of the
    documents hold, of the liked topic and of another; None when there is none."""
    holders: dict[str, list[int]] = {}
    for i in keep:
        for w in bags[i]:
            holders.setdefault(w, []).append(i)
    fits = sorted(
        w
        for w, held in holders.items()
        if len(w) >= 4
        and w not in function
        and MIN_MATCHES <= len(held) <= MAX_SHARE * keep.size
        and (labels[held] == liked).any()
        and (labels[held] != liked).any()
    )
    return str(rng.choice(fits)) if fits else None


def search_topics(data_root: str | Path, split: str, item_sentences: int = 1) -> Topics:
    """SIB-200's ``split`` as the benchmark's items (``item_sentences`` sentences of one topic each), refused in words
    when a user cannot be drawn from them: any topic may be liked, so each needs ``LIKES`` items, and ``TOPICS``
    topics are needed. The CLI calls it before any other evaluation, which can take an hour."""
    topics = load_topics(data_root, split)
    if item_sentences != 1:
        topics = as_articles(topics, item_sentences)
    counts = {t: topics.topics.count(t) for t in sorted(set(topics.topics))}
    made = f"SIB-200 {split} in items of {item_sentences} sentence{'s' if item_sentences != 1 else ''}"
    if len(counts) < TOPICS:
        raise EdgeRankerError(f"{made} has {len(counts)} topic(s); users and their searches need {TOPICS}")
    fewest = min(counts, key=counts.__getitem__)
    if counts[fewest] < LIKES:  # a user dislikes fewer than it likes
        hints = ["fewer sentences per item"] if item_sentences > 1 else []
        hints += ["--topics-split train"] if split != "train" else []
        hint = " or ".join(hints) or "a split with more items per topic"
        raise EdgeRankerError(
            f"{made} makes {counts[fewest]} item(s) of the topic {fewest!r}, fewer than a user's {LIKES} likes: "
            f"use {hint}"
        )
    return topics


def evaluate_personal_search(
    semantic: Encoder,
    relevance: Encoder,
    data_root: str | Path,
    split: str = "dev",
    users: int = USERS,
    directions: list[tuple[str, str]] | None = None,
    strengths: tuple[float, ...] = (),
    seed: int = 0,
    qa_sets: dict[str, str] | None = None,
    item_sentences: int = 1,
) -> dict:
    """``{"robustness": ..., "usefulness": ...}`` for the Ranker of ``semantic`` and ``relevance``; SIB-200's
    ``split`` gives the histories, the items searched across languages and the usefulness queries; ``users`` per
    usefulness setting; ``directions`` (query language, document language) across languages, default each other
    language to and from English; ``strengths``: personal weights to measure beside the default; ``qa_sets``: the
    QA dev sets searched and their language (default ``QA_SETS``); ``item_sentences``: sentences of one topic per
    item (articles)."""
    from edge_ranker.evaluate.crosslingual import DIRECTIONS

    topics = search_topics(data_root, split, item_sentences)
    directions = [d for d in (directions or DIRECTIONS) if set(d) <= set(topics.texts)]
    with tempfile.TemporaryDirectory() as tmp:
        people = Users(semantic, relevance, topics, Path(tmp), seed)
        try:
            return {
                "robustness": robustness(
                    people, data_root, directions, strengths, QA_SETS if qa_sets is None else qa_sets
                ),
                "usefulness": usefulness(people, SETTINGS, users, strengths),
            }
        finally:
            people.empty.store.close()
