"""``Ranker``: a user's documents ordered by their stored likes and dislikes and, when given, a query.

The interests (``interests``) live in both models' spaces at once (``Ranker.interest_vectors``); a query is scored by
the relevance model, BM25 and, across languages, the semantic model, and meets the interests in one score
(``fusion``: the query decides what is relevant, the interests order within it). Without a query the interests order
the feed; with neither, the newest come first. A document without a word goes last in each order; one the models
cannot read (``readable``) goes last for the interests and says nothing to a query. Each result's contributions add
up to its score (``ranking``)."""

from __future__ import annotations

import logging
import math
import numbers
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.adoption import Adoption
from edge_ranker.runtime.cache import CACHE_VECTORS, TermCache, VectorCache
from edge_ranker.runtime.constants import (
    DIVERSITY,
    DIVERSITY_WINDOW,
    LEXICAL_WEIGHT,
    PERSONAL_WEIGHT,
    RRF_K,
    SEMANTIC_QUERY_WEIGHT,
    SEMANTIC_SHARE,
)
from edge_ranker.runtime.diversity import diversify
from edge_ranker.runtime.documents import (
    Document,
    Unlearnable,
    decimal_id,
    documents,
    integer_id,
    one_pair,
    reacted,
    unique_ids,
)
from edge_ranker.runtime.duplicates import FOLDS, REACTED, fold, last, sink
from edge_ranker.runtime.encoder import Encoder, clean_text, model_key, text_list
from edge_ranker.runtime.fusion import (
    neutral,
    personal_lift,
    query_part,
    query_scores,
    recency,
    rrf,
)
from edge_ranker.runtime.interests import PersonalScores, alive, finite, interest_vectors, personal_scores
from edge_ranker.runtime.lexical import TermIndex, bm25, coverage, has_word, matched, terms
from edge_ranker.runtime.ranking import Ranking
from edge_ranker.runtime.readable import VocabularyCoverage
from edge_ranker.runtime.store import MEMORY, PreferenceStore, check_view_time
from edge_ranker.runtime.store.events import reaction_time
from edge_ranker.runtime.store.files import user_path
from edge_ranker.runtime.threads import one_blas_thread

log = logging.getLogger("edge_ranker")
QUERY_CACHE = 64
MODEL_API = ("encode", "manifest", "dim", "name", "tokenizer", "cut", "cut_chars")  # what the Ranker uses of a model
PROGRESS_FROM = 2_000  # texts to embed before a progress bar is worth showing (about a second)
# SEMANTIC_SHARE, the semantic model's share of an interest's cosine beside a relevance model (which has the rest;
# spec/rules/semantic-share.md), is part of the stored model key, so interests stored under another share are embedded
# again.


class Ranker:
    """Ranks documents by the user's stored likes and dislikes and an optional query, and records the reactions.
    A document's interest vector is its semantic and passage vectors side by side (``interest_vectors``): the two
    students err apart. Document vectors are kept in memory and in the store's file, so a feed is embedded once, across
    processes too. One pair of models per store: reactions stored under others are embedded again from their text."""

    def __init__(
        self,
        semantic: Encoder,
        relevance: Encoder | None,
        store: PreferenceStore,
        personal_weight: float = PERSONAL_WEIGHT,
        lexical_weight: float = LEXICAL_WEIGHT,
        semantic_query_weight: float = SEMANTIC_QUERY_WEIGHT,
        k: int = RRF_K,
        cache_vectors: int = CACHE_VECTORS,
        show_progress_bar: bool = False,
    ) -> None:
        _check_model("semantic", semantic)
        if relevance is not None:
            _check_model("relevance", relevance)
            if (semantic.manifest.kind, relevance.manifest.kind) == ("relevance", "semantic"):  # ranks, but wrongly
                raise EdgeRankerError(
                    f"the models are swapped: {semantic.name!r} is a relevance model and {relevance.name!r} a semantic "
                    "one; give the semantic model first, Ranker(semantic, relevance, store)"
                )
        if not isinstance(store, PreferenceStore):
            raise EdgeRankerError(f"store must be a PreferenceStore(path), got {type(store).__name__}")
        check_options(k, personal_weight, lexical_weight, semantic_query_weight)
        self.semantic, self.relevance, self.store = semantic, relevance, store
        self.show_progress_bar = show_progress_bar
        self.personal_weight, self.k = personal_weight, int(k)
        self.lexical_weight, self.semantic_query_weight = lexical_weight, semantic_query_weight
        self.config = store.config  # one config: the store moves the interests, the ranker decays them
        if isinstance(cache_vectors, bool) or not isinstance(cache_vectors, numbers.Integral) or cache_vectors < 1:
            raise EdgeRankerError(f"cache_vectors must be a whole number >= 1, got {cache_vectors!r}")
        cache_vectors = int(cache_vectors)
        self.vectors = VectorCache(cache_vectors, store)
        self.terms = TermCache(cache_vectors)
        self.reader = VocabularyCoverage(
            semantic, cache_vectors
        )  # which texts the models can read, by the semantic vocabulary
        self._queries: dict[tuple[str, str, str], np.ndarray] = {}
        self._last_feed: tuple[list[str], np.ndarray] | None = None  # the last feed's texts and wordless flags
        self._last_interest: tuple[list[str], np.ndarray] | None = None  # and its interest vectors
        self._last_reacted: tuple | None = None  # store version, reacted ids, the last feed's ids and their mask
        self._query_lock = threading.Lock()
        pair = f"+{model_key(relevance)}@{SEMANTIC_SHARE:g}" if relevance is not None else ""
        self.model_key = model_key(semantic) + pair
        self.space = store.space(self.model_key)  # the store as these models' space holds it
        self.adoption = Adoption(store, self.model_key)  # no reference back: a failed init frees its store
        self._interests()

    @classmethod
    def load(
        cls,
        store: str | Path | PreferenceStore | None = None,
        semantic: str | Path | Encoder = "semantic",
        relevance: str | Path | Encoder | None = "relevance",
        threads: int = 1,
        **options: Any,
    ) -> Ranker:
        """A Ranker in one call: the shipped pair of models (or those named: a shipped name, a model folder or an
        ``Encoder``; ``relevance=None`` for no queries) and a store (a path; ``":memory:"``, which keeps nothing on
        disk; a ``PreferenceStore``; or None, the user's default). ``options`` are the constructor's."""
        if isinstance(store, (str, os.PathLike)) and store != MEMORY:  # a mistyped path is said, not made, and
            path = user_path(store, "preference database path", database=True)  # before the models load
            if not path.absolute().parent.is_dir():
                raise EdgeRankerError(
                    f"there is no folder {path.absolute().parent} for the preference database {path}: create it, or "
                    "check the path (PreferenceStore(path) makes the folders of a new store)"
                )
        models = [
            m if isinstance(m, Encoder) or m is None else Encoder.load(m, threads=threads)
            for m in (semantic, relevance)
        ]
        if not isinstance(store, PreferenceStore):
            store = PreferenceStore(store)
        return cls(models[0], models[1], store, **options)

    def __repr__(self) -> str:
        rel = self.relevance.name if self.relevance is not None else None
        return f"Ranker(semantic={self.semantic.name!r}, relevance={rel!r}, store={self.store!r})"

    def embed(self, docs: Iterable[Document | dict | str | tuple], model: str = "semantic") -> np.ndarray:
        """The vectors ``rank`` uses for ``docs``, for an app that keeps them itself and passes them back to
        ``rank``: ``model`` "semantic" (``semantic_vectors``) or "relevance" (the documents' passage vectors,
        ``passage_vectors``). A role is the encoder's word for query or passage; here the choice is the model."""
        texts = [d.text for d in documents(docs)]
        if model == "semantic":
            return self._embed(self.semantic, texts, None).copy()
        if model == "relevance" and self.relevance is not None:
            return self._embed(self.relevance, texts, "passage").copy()
        raise EdgeRankerError(f"model must be 'semantic' or 'relevance' (with a relevance model), got {model!r}")

    def interest_vectors(
        self, texts: list[str], semantic: np.ndarray | None = None, passages: np.ndarray | None = None
    ) -> np.ndarray:
        """What interests are made of and compared with: the semantic vectors, and with a relevance model the
        passage vectors beside them, scaled so that its cosines are the two models' weighted by ``SEMANTIC_SHARE``."""
        if isinstance(texts, (str, bytes)):
            raise EdgeRankerError("interest_vectors takes a list of texts, not one text")
        texts = text_list(texts)
        odd = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
        if odd is not None:
            raise EdgeRankerError(f"interest_vectors takes texts (str); item {odd} is {type(texts[odd]).__name__}")
        sem = self._embed(self.semantic, texts, None) if semantic is None else semantic
        if self.relevance is None:
            return sem.copy() if semantic is None else sem  # the cache's rows stay the cache's
        pas = self._embed(self.relevance, texts, "passage") if passages is None else passages
        return interest_vectors(sem, pas)

    def _embed(self, encoder: Encoder, texts: list[str], role: str | None) -> np.ndarray:
        role = role if encoder.roles else None

        def compute(missing: list[str]) -> np.ndarray:  # a bar only where embedding takes more than a moment
            bar = self.show_progress_bar and len(missing) >= PROGRESS_FROM
            return encoder.encode(missing, role=role, show_progress_bar=bar)

        return self.vectors.get(model_key(encoder), role or "", texts, encoder.dim, compute)

    def _query_vector(self, encoder: Encoder, query: str, role: str | None) -> np.ndarray:
        """The query's vector by ``encoder`` in ``role`` (the relevance model's "query"; none for the semantic model,
        whose documents have none); the last ``QUERY_CACHE`` are kept, as a feed is re-ranked for the same query
        when it refreshes or pages."""
        role = role if encoder.roles else None
        key = (model_key(encoder), role or "", query)
        with self._query_lock:
            q = self._queries.get(key)
        if q is None:
            q = encoder.encode([query], role=role)[0]
            with self._query_lock:
                self._queries[key] = q
                while len(self._queries) > QUERY_CACHE:
                    del self._queries[next(iter(self._queries))]
        return q

    def feedback(self, doc: Document | dict | str | tuple, reaction: str, ts: float | None = None) -> int:
        """Like or dislike a document: store its interest vector (``interest_vectors``) with its text; returns the
        event id. Each reaction is an event: liking a document twice moves its interest twice, and liking then
        disliking it keeps both, a liked and a disliked interest; ``undo(doc_id)`` undoes a document's
        reactions, so a change of mind is ``undo`` then the new reaction."""
        doc = reacted(doc)
        if not has_word(doc.text, self.semantic.cut_chars):  # its vector would pull every document alike
            raise Unlearnable(
                f"document {doc.id!r} has no word to learn an interest from (empty, or only punctuation or emoji)"
            )
        if not self.reader.readable(doc.text):  # nor would the vector of a script the models lack
            # rounded up, so that just over half never reads "50%"; less a hair, so that 0.55 does not read "56%"
            share = math.ceil(100 * self.reader.unknown_share(doc.text) - 1e-9)
            raise Unlearnable(
                f"document {doc.id!r} is not one the models can read: {share}% of its words are unknown to their "
                "vocabulary (a script it lacks, or symbols within words): no interest is learnt from it"
            )
        emb = self.interest_vectors([doc.text])[0]
        return self.space.add_feedback(doc.id, emb, reaction, text=doc.text, ts=ts)

    def viewed(self, doc: Document | dict | str | tuple, seconds: float, ts: float | None = None) -> None:
        """The user opened ``doc`` and read it for ``seconds``: a view, kept with the document, and its time added to
        the closest liked interest's weight. A document read long enough and never liked or disliked counts as a
        like weaker than one (``signals``, spec/rules/implicit.md); one opened is never a skip. A document no interest
        can be learnt from (``feedback`` refuses it: no word, or not one the models can read) is not kept, since
        its closest interest would be chance. ``ts``: unix seconds of the view (default now)."""
        doc = reacted(doc)
        seconds = check_view_time(seconds)  # before the model runs
        reaction_time(ts)  # and said whether or not the view is kept
        if self._learnable(doc.text):
            self._interests()  # the liked interests it goes to, in these models' space
            vector = self.interest_vectors([doc.text])[0]
            self.space.add_signals("view", [(doc.id, doc.text, vector, seconds)], ts, dwell=True)

    def shown(self, docs: Iterable[Document | dict | str | tuple], ts: float | None = None) -> int:
        """The app displayed ``docs`` (say, the top of a ranked feed): each showing is kept, and a document shown
        ``SKIP_AFTER`` times and never opened nor reacted to counts as a dislike weaker than one, unless it is close
        to what the user reads (spec/rules/implicit.md). Documents no interest can be learnt from are not kept; an id
        twice is refused, as ``rank`` refuses it. ``ts``: unix seconds of the showing (default now). Returns how many
        showings were kept."""
        if isinstance(docs, (str, bytes, dict, Document)):
            raise EdgeRankerError("shown takes a list of documents, not one document")
        if one_pair(docs):  # like(("id", "text")) takes it as one document; shown must not read two texts from it
            raise EdgeRankerError(
                "shown takes a list of documents; a tuple of an id and a text is one (id, text) document: pass a list "
                "([(id, text)], or [text, text] for two texts)"
            )
        docs = documents(docs)
        unique_ids(docs)  # one showing of a document each, as ``rank`` takes a feed: twice would be a skip at once
        reaction_time(ts)  # said whether or not any showing is kept, as the web package does
        docs = [d for d in docs if self._learnable(d.text)]
        if not docs:
            return 0
        self._interests()
        vectors = self.interest_vectors([d.text for d in docs])
        return self.space.add_signals("shown", [(d.id, d.text, v, 0.0) for d, v in zip(docs, vectors)], ts)

    def like(self, doc: Document | dict | str | tuple, ts: float | None = None) -> int:
        """The user liked ``doc``: ``feedback(doc, "like")``; returns the event id."""
        return self.feedback(doc, "like", ts)

    def dislike(self, doc: Document | dict | str | tuple, ts: float | None = None) -> int:
        """The user disliked ``doc``: ``feedback(doc, "dislike")``; returns the event id."""
        return self.feedback(doc, "dislike", ts)

    def undo(self, doc_id: str | int) -> int:
        """Undo the user's reactions to ``doc_id`` (the interests are rebuilt without them); returns how many
        reactions were undone."""
        if not isinstance(doc_id, str) and not integer_id(doc_id):  # str() of a list would undo nothing
            raise EdgeRankerError(f"undo takes a document id (a string or an integer), got {type(doc_id).__name__}")
        return self.store.undo(decimal_id(doc_id))

    def history(self) -> list[dict]:
        """The stored reactions, oldest first: what an app shows as liked and disliked (``PreferenceStore.history``,
        as the web package's ``history()``)."""
        return self.store.history()

    def export(self) -> dict:
        """Everything stored of the user, as JSON-ready data (``edge-ranker prefs export``)."""
        return self.store.export()

    def erase(self) -> list[Path]:
        """Erase every trace of the user: reactions, interests and cached vectors, overwritten in the file (as
        ``edge-ranker prefs erase``); returns the recovered copies it deleted too."""
        return self.store.erase()

    def _interests(self) -> tuple[list, list]:
        """The store's interests in these models' space (``Adoption``)."""
        size = self.semantic.dim + (self.relevance.dim if self.relevance is not None else 0)
        return self.adoption.interests(size, self._learnable, self.interest_vectors)

    def _learnable(self, text: str) -> bool:
        """Whether a text can teach an interest: it has a word, and the models can read it (``LEARNABLE_RULE``)."""
        return has_word(text, self.semantic.cut_chars) and self.reader.readable(text)

    def rank(
        self,
        docs: Iterable[Document | dict | str | tuple],
        query: str | None = None,
        now: float | None = None,
        semantic_vectors: np.ndarray | None = None,
        passage_vectors: np.ndarray | None = None,
        personal_weight: float | None = None,
        duplicates: str = "fold",
        reacted: str | None = None,
        diversity: float | None = None,
    ) -> Ranking:
        """Rank ``docs`` (``Document``s, dicts with ``id``, ``text``, optional ``published``, ``(id, text)`` pairs or
        plain texts, whose ids are then their positions) by the stored
        interests and, when given, ``query``; returns a ``Ranking``, best first. ``now``: unix seconds for the
        interests' decay (default: the clock). ``personal_weight``: how much the interests move this query's results
        (default: the Ranker's; 0: the query alone; a feed without a query is ordered by the interests whatever it
        is). ``semantic_vectors`` / ``passage_vectors``: the documents' vectors
        from ``embed``, when the app kept them (else they come from the cache or are computed); both are checked
        whenever given, and the semantic ones also serve a query whose words the documents lack.

        ``duplicates``: "fold" (default) puts a document of the same story as one ranked above it (its semantic
        cosine reaches ``DUPLICATE_COSINE``: the same story in another language or other words) after all the others,
        marked ``duplicate_of`` the id kept in place; "keep" ranks it by its score. ``reacted``: what becomes of the
        documents the user liked, disliked or opened: "sink" after the others, "leave_out" out of the ranking,
        "keep" where their scores put them; default "sink" for a feed and "keep" for a search (spec/rules).
        ``diversity``: in a feed (no query), how much each document above it closest to the same liked interest
        lowers a document's personal score as the top ``DIVERSITY_WINDOW`` are placed, so that a reader of several
        topics sees each near the top (default ``DIVERSITY``; 0: the scores' order; spec/rules/diversity.md)."""
        diversity = DIVERSITY if diversity is None else _check_weight("diversity", diversity)
        if not isinstance(duplicates, str) or duplicates not in FOLDS:  # an array would be compared word by word
            raise EdgeRankerError(f"duplicates must be one of {', '.join(map(repr, FOLDS))}, got {duplicates!r}")
        if reacted is not None and (not isinstance(reacted, str) or reacted not in REACTED):
            raise EdgeRankerError(f"reacted must be one of {', '.join(map(repr, REACTED))}, got {reacted!r}")
        with one_blas_thread():
            return self._rank(
                documents(docs), query, now, semantic_vectors, passage_vectors, personal_weight, duplicates, reacted,
                diversity,
            )

    def _rank(
        self,
        docs: list[Document],
        query: str | None,
        now: float | None,
        semantic_vectors: np.ndarray | None,
        passage_vectors: np.ndarray | None,
        personal_weight: float | None,
        duplicates: str,
        reacted: str | None,
        diversity: float,
    ) -> Ranking:
        """``rank``'s work, its options checked."""
        if not docs:
            return Ranking([], np.zeros(0), {}, None, None, None)
        ids = unique_ids(docs)
        now = _now(now)
        strength = self.personal_weight if personal_weight is None else _check_weight("personal", personal_weight)
        query = self._query_text(query)
        positive, negative = (alive(c, now, self.config) for c in self._interests())
        use_personal = len(positive) >= self.config.min_positive_cois or bool(negative)
        n = len(docs)
        texts = list(map(attrgetter("text"), docs))
        emb = _given(semantic_vectors, n, self.semantic.dim, "semantic_vectors")
        if passage_vectors is not None and self.relevance is None:
            raise EdgeRankerError("passage_vectors need a relevance model")
        passages = _given(passage_vectors, n, self.relevance.dim, "passage_vectors") if self.relevance else None
        # a document without a word goes last, for the interests, the query and the newest-first order alike
        wordless = self._wordless(texts)
        # one the models cannot read goes last for the interests, and its vectors say nothing for the query
        folding = duplicates == "fold" and n > 1
        unread = self.reader.unreadable(texts) if use_personal or query or folding else np.zeros(n, bool)
        personal = None
        if use_personal:
            given = emb is not None or passages is not None
            emb = self._embed(self.semantic, texts, None) if emb is None else emb
            if self.relevance is not None:
                passages = self._embed(self.relevance, texts, "passage") if passages is None else passages
            interest = self._interest_matrix(texts, emb, passages, given)
            personal = personal_scores(interest, positive, negative, now, self.config)
        search = self._search(query, texts, unread, emb, passages) if query else Search()
        known = ~(wordless | unread)
        parts = self._parts(docs, personal, search, wordless, known, strength)
        total = np.sum(list(parts.values()), axis=0)
        order, folded = np.argsort(-total, kind="stable"), None
        how = reacted or ("keep" if search.score is not None else "sink")
        mask = self._reacted(ids) if how != "keep" else None
        if diversity and personal is not None and search.score is None:  # a feed: its interests' topics take turns
            taking = known if mask is None else known & ~mask  # a document that sinks takes no topic's turn
            group = np.where(taking, personal.positive_coi, -1)
            order = diversify(order, np.where(known, personal.score, -np.inf), group, diversity, DIVERSITY_WINDOW)
        if folding:  # only documents the models read: an unread text's vector sits close to many by chance
            emb = self._embed(self.semantic, texts, None) if emb is None else emb
            order, folded = fold(order, emb, known)
        # what the scores put last stays last: no word, and for the interests (a feed), unreadable; a query's BM25 still
        # ranks an unreadable document by its words
        end = wordless | (unread if personal is not None and search.score is None else False)
        if folding:
            order = last(order, end)
        if mask is not None:
            order = sink(order, mask, how, folded if folded is not None else np.full(n, -1), end)
        log.debug("ranked %d documents (%s)", n, ", ".join(parts))
        return Ranking(
            ids, total, parts, personal, search.relevance, search.lexical, search.semantic, search.cover, search.score,
            order, folded,
        )

    def _interest_matrix(
        self, texts: list[str], emb: np.ndarray, passages: np.ndarray | None, given: bool
    ) -> np.ndarray:
        """The documents' interest vectors (``interests.interest_vectors``); those of the last feed ranked are kept,
        since a text's vectors never change under one pair of models (vectors an app gave are used as given)."""
        if passages is None:
            return emb
        last = self._last_interest
        if not given and last is not None and last[0] == texts:
            return last[1]
        out = interest_vectors(emb, passages)
        self._last_interest = None if given else (list(texts), out)
        return out

    def _wordless(self, texts: list[str]) -> np.ndarray:
        """Per text, whether it holds no word within what the semantic model reads; a feed ranked again (a search box
        ranks the same feed on every keystroke) is looked up whole, not text by text."""
        last = self._last_feed
        if last is not None and last[0] == texts:
            return last[1]
        cut = self.semantic.cut_chars
        flags = np.fromiter((not has_word(t, cut) for t in texts), bool, len(texts))
        self._last_feed = (list(texts), flags)
        return flags

    def _reacted(self, ids: list[str]) -> np.ndarray | None:
        """Which documents the user liked, disliked or opened (None: none of them), read from the store again only
        after a write."""
        version = self.store.version()
        if self._last_reacted is None or self._last_reacted[0] != version:
            self._last_reacted = (version, self.space.reacted_ids(), None)
        _, seen, last = self._last_reacted
        if not seen:
            return None
        if last is not None and last[0] == ids:
            return last[1]
        mask = np.fromiter((i in seen for i in ids), bool, len(ids))
        self._last_reacted = (version, seen, (list(ids), mask))
        return mask if mask.any() else None

    def _query_text(self, query: str | None) -> str | None:
        """The query as ranked: cleaned and stripped; None when it holds no word (only punctuation or emoji, within
        what the semantic model reads, as the JVM decides), which nothing can match."""
        query = clean_text(query, "query").strip() if query is not None else None
        if not query or not has_word(query, self.semantic.cut_chars):
            return None
        if self.relevance is None:
            raise EdgeRankerError(
                "a query needs a relevance model: give the Ranker one (Encoder.load('relevance'); on the command line "
                "--relevance relevance), or rank without the query"
            )
        return query

    def _search(
        self, query: str, texts: list[str], unread: np.ndarray, emb: np.ndarray | None, passages: np.ndarray | None
    ) -> Search:
        """What the query says of each document: the relevance cosine, BM25, the semantic cosine where the query's
        words are missing, and the query score they make (``fusion.query_scores``)."""
        rel = self.relevance
        passages = self._embed(rel, texts, "passage") if passages is None else passages
        search = Search(relevance=passages @ self._query_vector(rel, query, "query"))
        search.words = terms(rel.tokenizer, rel.cut(query))
        search.feed = self.terms.feed(rel, texts)
        search.cover = coverage(search.words, search.feed)
        if self.lexical_weight:
            search.lexical = bm25(search.words, search.feed)
        if self.semantic_query_weight and search.cover < 1.0:
            emb = self._embed(self.semantic, texts, None) if emb is None else emb
            search.semantic = emb @ self._query_vector(self.semantic, query, None)
        blind = not self.reader.readable(query)
        score = query_scores(
            neutral(search.relevance, unread, blind),
            search.lexical,
            self.lexical_weight,
            semantic=None if search.semantic is None else neutral(search.semantic, unread, blind),
            cover=search.cover,
            semantic_weight=self.semantic_query_weight,
        )
        if not (blind and np.ptp(score) == 0):  # a query the models cannot read and no document has its words
            search.score = score
        return search

    def _parts(
        self,
        docs: list[Document],
        personal: PersonalScores | None,
        search: Search,
        wordless: np.ndarray,
        known: np.ndarray,
        strength: float,
    ) -> dict[str, np.ndarray]:
        """The parts of each document's score, which add up to it: the query's and the interests' lift on it
        (``fusion``); without a query, the interests' order; with neither, the newest first."""
        if search.score is not None:
            lift = np.zeros(len(docs))
            if personal is not None:  # ``known`` leaves out the wordless: they get no lift
                lift = personal_lift(personal.score, matched(search.words, search.feed), known, strength, search.score)
            parts = {"query": query_part(search.score, lift, wordless)}
            return parts | {"personal": lift} if personal is not None else parts
        if personal is not None:
            return {"personal": rrf(np.where(known, personal.score, -np.inf), self.k)}
        return {"recency": recency([d.published for d in docs], wordless, self.k)}


@dataclass
class Search:
    """What a query gave ``Ranker.rank``; all None without one. ``score`` is None too for a query the models cannot
    read whose words no document has: it says nothing, and the feed is ordered as without it."""

    relevance: np.ndarray | None = None
    lexical: np.ndarray | None = None
    semantic: np.ndarray | None = None
    cover: float | None = None
    score: np.ndarray | None = None
    words: list[str] = field(default_factory=list)
    feed: TermIndex | None = None


def _now(now: object) -> float:
    """``now`` as float unix seconds (default: the clock), refused unless finite."""
    now = time.time() if now is None else now
    if isinstance(now, bool) or not (isinstance(now, numbers.Real) and finite(now)):
        raise EdgeRankerError(f"'now' must be finite unix seconds, got {now!r}")
    return float(now)  # a Fraction or Decimal-like Real would fail inside numpy


def _check_model(role: str, model: object) -> None:
    """A model the Ranker can use: an ``Encoder`` or a wrapper with the ``MODEL_API`` it calls."""
    missing = [a for a in MODEL_API if not hasattr(model, a)]
    if missing:
        raise EdgeRankerError(
            f"the {role} model must be an Encoder (Encoder.load({role!r})) or a wrapper of one; "
            f"{type(model).__name__} lacks {', '.join(missing)}"
        )


def check_options(
    k: object = RRF_K,
    personal_weight: object = PERSONAL_WEIGHT,
    lexical_weight: object = LEXICAL_WEIGHT,
    semantic_query_weight: object = SEMANTIC_QUERY_WEIGHT,
) -> None:
    """The Ranker's settings, refused in words unless each is in range (spec/rules/checks.md)."""
    if isinstance(k, bool) or not (isinstance(k, numbers.Integral) and 0 < k <= 10**9):
        raise EdgeRankerError(f"RRF k must be a whole number from 1 to 10**9, got {k!r}")
    _check_weight("personal", personal_weight)
    _check_weight("lexical", lexical_weight)
    _check_weight("semantic query", semantic_query_weight)


def _check_weight(name: str, weight: object) -> float:
    """A weight as a float, refused in words unless a finite number >= 0 (a NaN would scramble every order)."""
    if isinstance(weight, (bool, np.bool_)) or not (isinstance(weight, numbers.Real) and finite(weight)) or weight < 0:
        raise EdgeRankerError(f"the {name} weight must be a finite number >= 0, got {weight!r}")
    return float(weight)


def _given(vectors: np.ndarray | None, n: int, dim: int, name: str) -> np.ndarray | None:
    if vectors is None:
        return None
    try:
        v = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EdgeRankerError(f"{name} must be an array of numbers, got {type(vectors).__name__}") from exc
    if v.shape != (n, dim):
        raise EdgeRankerError(f"{name} must have shape ({n}, {dim}): one row per document, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise EdgeRankerError(f"{name} must be finite numbers; row {int(np.argmin(np.isfinite(v).all(axis=1)))} is not")
    return v
