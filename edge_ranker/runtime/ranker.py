"""``Ranker``: order candidate documents by the user's stored interests and, when given, a query.

Personalisation: the centers of interest (see ``interests``) over the semantic model's vectors, with the relevance
model's passage vectors beside them when the ranker has one (``Ranker.interest_vectors``). Relevance: cosine of
the relevance model's query and passage vectors plus ``lexical_weight`` times the query's BM25 over the
candidates, both standardised over the candidates (``lexical``: the student alone ranks far below BM25 on the
retrieval sets here, the sum above both); BM25 weighs by the share of the query's words the candidates have, and
the semantic model's query cosine joins by the share they lack, which carries a query in another language than
the documents (``lexical.query_scores``). With a query, the query decides what is relevant and the interests
order within it (``fusion``: they lift a document by how much of the query's words it holds, never one that holds
none); ``rank(..., personal_weight=0)`` is the query alone. Without a query the interests order the feed. Cold
start: no interests yet, or none alive (each fades to nothing 30 days after its last reaction) -> the query alone,
else newest first (then input order). A document without a word goes last in each order; one the models
cannot read (``readable``: a script their vocabulary lacks) goes last for the interests and its query cosines are
neutral, as are all when the query is such a text (which adds no order when no document has its words). Every
explanation's contributions add up to its score.

Ranking is arrays end to end: a ``Ranking`` builds each result's ``Ranked`` (and its explanation) only when it
is read, so ranking 100,000 documents costs no Python object per document.
"""

from __future__ import annotations

import hashlib
import logging
import math
import numbers
import operator
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from operator import attrgetter
from typing import Any, overload

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.cache import CACHE_VECTORS, VectorCache, drop_oldest
from edge_ranker.runtime.encoder import Encoder, clean_text, text_list
from edge_ranker.runtime.fusion import (
    LEXICAL_WEIGHT,
    PERSONAL_WEIGHT,
    RRF_K,
    SEMANTIC_QUERY_WEIGHT,
    personal_lift,
    query_part,
    rrf,
)
from edge_ranker.runtime.interests import PersonalScores, alive, finite, personal_scores
from edge_ranker.runtime.lexical import Bag, Feed, bm25, coverage, has_word, matched, query_scores, terms
from edge_ranker.runtime.readable import UNKNOWN_LIMIT, Reader
from edge_ranker.runtime.store import PreferenceStore, check_id, check_view_time
from edge_ranker.runtime.store_sqlite import damaged_store

log = logging.getLogger("edge_ranker")
QUERY_CACHE = 64
MODEL_API = ("encode", "manifest", "dim", "name", "tokenizer", "cut", "cut_chars")  # what the Ranker uses of a model
PROGRESS_FROM = 2_000  # texts to embed before a progress bar is worth showing (about a second)
LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z: a later 'published' is a unit mistake (milliseconds)
# The semantic model's share of an interest's cosine with a relevance model beside it (which has the rest): 0.65
# keeps more of USE's gain than an even mean on all three feeds measured, sentences of the SIB-200 dev and train
# splits and article-length items (bench/RESULTS.md, "Personalised feed"). Part of the stored model key, so
# interests stored under another share are embedded again from their text. The JVM core's Ranker.SEMANTIC_SHARE
# mirrors it (android_demo/core's golden test compares the model keys).
SEMANTIC_SHARE = 0.65
# two unit vectors side by side times these: a unit vector whose cosines are the shares' weighted sum
SEMANTIC_SCALE, PASSAGE_SCALE = np.float32(np.sqrt(SEMANTIC_SHARE)), np.float32(np.sqrt(1 - SEMANTIC_SHARE))
# What ``_learnable`` decides by, stored with the reactions a start leaves out (``leave_out``), so that a release that
# decides otherwise looks at them again: a change to ``has_word``, ``Reader.unknown_share`` or the limit gives the rule
# a new number.
LEARNABLE_RULE = f"rule 1: a word, at most {UNKNOWN_LIMIT!r} of the words unknown"


class Unlearnable(EdgeRankerError):
    """A reaction ``feedback`` refuses because no interest can be learnt from its text (``LEARNABLE_RULE``): an app
    shows the message and goes on; nothing was stored."""


@dataclass(frozen=True)
class Document:
    """A document to rank: a non-blank string ``id``, its ``text`` (any text; bytes are decoded leniently, None is
    empty) and optionally when it was ``published`` (unix seconds, an ISO-8601 string or a ``datetime``; one
    without a time zone is UTC), which orders a feed before the user has reacted. Frozen: it is checked once, when
    made, so it cannot be changed into one that was not."""

    id: str
    text: str
    published: float | None = None  # unix seconds once made

    def __post_init__(self) -> None:
        # every way in is checked, not only from_dict: an id is an identity (refused, never altered, but for an
        # integer, which is its decimal string, as from_dict reads it), text is made storable (a lone surrogate cannot
        # be written to SQLite)
        object.__setattr__(self, "id", _decimal_id(self.id))
        check_id(self.id)
        object.__setattr__(self, "text", clean_text(self.text))
        object.__setattr__(self, "published", _published(self.published, self.id))

    @classmethod
    def from_dict(cls, d: dict) -> Document:
        """A document from JSON-like data: ``id`` (a string, or an integer, kept as its decimal string: ids are
        strings, so ``1`` and ``"1"`` are one document), ``text`` and optional ``published``, as ``Document`` takes
        them."""
        if not isinstance(d, dict) or "id" not in d or "text" not in d:
            raise EdgeRankerError(f"a document needs an 'id' and a 'text', got {str(d)[:80]!r}")
        if not (isinstance(d["id"], str) or _integer(d["id"])) or d["id"] == "":
            raise EdgeRankerError(f"a document's 'id' must be a non-blank string or an integer, got {d['id']!r}")
        doc_id = _decimal_id(d["id"])
        text = d["text"]
        if text is not None and not isinstance(text, (str, bytes, bytearray)):
            raise EdgeRankerError(f"document {doc_id}: 'text' must be a string, got {type(text).__name__}")
        return cls(doc_id, text, d.get("published"))


def _integer(value: object) -> bool:
    """Whether ``value`` is an integer, numpy's included (ids often come from a numpy or pandas column), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _decimal_id(doc_id: Any) -> Any:
    """An integer id as the string it stands for (one past Python's digit limit for ``str`` refused in words); any
    other id as it is, for its checks to take or refuse."""
    if not _integer(doc_id):
        return doc_id
    doc_id = int(doc_id)
    try:
        return str(doc_id)
    except ValueError as exc:
        raise EdgeRankerError(f"a document id must be a string or an integer of at most 4,300 digits: {exc}") from exc


def _published(value: object, doc_id: str) -> float | None:
    """A publication time as unix seconds: from seconds, an ISO-8601 string or a ``datetime`` (UTC when it names no
    time zone, so that an order does not depend on the machine's); refused when not finite or after the year 9999."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise EdgeRankerError(f"document {doc_id}: 'published' is not ISO-8601: {value!r}") from exc
    if isinstance(value, datetime):
        value = (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not finite(value):
        raise EdgeRankerError(f"document {doc_id}: 'published' must be unix seconds, ISO-8601 or a datetime")
    if value > LAST_SECOND:  # would sort first in every cold start, for ever
        raise EdgeRankerError(
            f"document {doc_id}: 'published' {value!r} lies after the year 9999: unix seconds, not milliseconds?"
        )
    return float(value)


@dataclass
class Ranked:
    """One ranked document. ``score`` only orders: with a query, the query score plus the interests' lift (``fusion``);
    without one, ``1 / (k + rank)`` of the interests' order or, on a cold start, of the newest-first order.
    ``personal_score`` is the interest score (see ``interest``), ``query_score`` the query's score (its parts,
    standardised over the documents, added: ``relevance_score`` the relevance model's query-passage cosine,
    ``lexical_score`` the query's BM25, ``semantic_score`` the semantic model's query-document cosine, when some of
    the query's words are in no document); ``contributions`` are the parts of ``score`` ("query" and "personal", or
    "personal" or "recency" alone), which add up to it. ``interest``:
    ``positive_interest`` / ``negative_interest`` are the ids of the closest liked / disliked center of interest,
    ``*_similarity`` the document's cosine to it, ``*_decay`` its freshness (1 now, 0 after 30 days), and
    ``interest_relevance`` how much the user has engaged with the liked one (its share of reactions plus its share
    of view time, decayed: 0 to 2). A document without a word, or one the models cannot read, goes last for the
    interests whatever its ``personal_score``."""

    id: str
    score: float
    rank: int
    personal_score: float | None = None
    relevance_score: float | None = None
    lexical_score: float | None = None
    semantic_score: float | None = None
    query_score: float | None = None
    contributions: dict[str, float] = field(default_factory=dict)  # sum == score
    interest: dict | None = None  # which interest matched, and the parts of the personal score

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class Ranking(Sequence[Ranked]):
    """The ranked documents, best first: a sequence of ``Ranked`` built when read, over arrays computed once."""

    def __init__(
        self,
        ids: list[str],
        total: np.ndarray,
        parts: dict[str, np.ndarray],
        personal: PersonalScores | None,
        relevance: np.ndarray | None,
        lexical: np.ndarray | None,
        semantic: np.ndarray | None = None,
        query_coverage: float | None = None,
        query: np.ndarray | None = None,
    ) -> None:
        self._ids, self._total, self._parts = ids, total, parts
        self._personal, self._relevance, self._lexical, self._semantic = personal, relevance, lexical, semantic
        self._query = query
        self.query_coverage = query_coverage  # share of the query's words some document has (None: not measured)
        self._order = np.argsort(-total, kind="stable")  # ties: input order

    @property
    def ids(self) -> list[str]:
        """The document ids, best first."""
        return [self._ids[i] for i in self._order]

    @property
    def scores(self) -> np.ndarray:
        """The fused scores, best first (``ids[i]`` has ``scores[i]``)."""
        return self._total[self._order]

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, i: int) -> Ranked: ...

    @overload
    def __getitem__(self, i: slice) -> list[Ranked]: ...

    def __getitem__(self, i: int | slice) -> Ranked | list[Ranked]:
        if isinstance(i, slice):
            return [self._ranked(r) for r in range(*i.indices(len(self)))]
        i = operator.index(i)  # a TypeError for anything but an integer, as a list gives
        if not -len(self) <= i < len(self):
            raise IndexError("ranking index out of range")
        return self._ranked(i % len(self))

    def __iter__(self) -> Iterator[Ranked]:
        return (self._ranked(r) for r in range(len(self)))

    def _ranked(self, r: int) -> Ranked:
        i = int(self._order[r])
        p = self._personal
        return Ranked(
            self._ids[i],
            float(self._total[i]),
            r + 1,
            float(p.score[i]) if p is not None else None,
            float(self._relevance[i]) if self._relevance is not None else None,
            float(self._lexical[i]) if self._lexical is not None else None,
            float(self._semantic[i]) if self._semantic is not None else None,
            float(self._query[i]) if self._query is not None else None,
            {name: float(c[i]) for name, c in self._parts.items()},
            p.explain(i) if p is not None else None,
        )

    def __repr__(self) -> str:
        head = ", ".join(f"{self._ids[i]!r}" for i in self._order[:5])
        more = ", ..." if len(self) > 5 else ""
        return f"Ranking({len(self)} document{'' if len(self) == 1 else 's'}{': ' if head else ''}{head}{more})"


class TermCache:
    """Each text's terms for BM25, computed once per process (bounded: the oldest go first), and the last feed
    concatenated whole, as a search box ranks the same feed on every keystroke."""

    def __init__(self, capacity: int = CACHE_VECTORS) -> None:
        self.capacity = capacity
        self._bags: dict[str, Bag] = {}
        self._last: tuple[tuple[str, ...], Feed] | None = None
        self._lock = threading.Lock()

    def feed(self, encoder: Encoder, texts: list[str]) -> Feed:
        key = (encoder.name, *texts)
        with self._lock:
            last = self._last
            if last is None or last[0] != key:
                bags = self._bags
                for t in dict.fromkeys(texts):
                    if t not in bags:
                        bags[t] = Bag.of(terms(encoder.tokenizer, encoder.cut(t)))
                last = self._last = (key, Feed.of([bags[t] for t in texts]))
                drop_oldest(bags, len(bags) - self.capacity)
            return last[1]


class Ranker:
    """Ranks documents by the user's stored likes and dislikes and an optional query (the relevance model), and records
    feedback. Interests live in both models' spaces at once when a relevance model is given: a document's interest
    vector is its semantic and passage vectors side by side (``interest_vectors``), so its similarity to an interest is
    the two models' cosines weighted by ``SEMANTIC_SHARE``; the two students err apart, and together they keep more of
    USE's gain on the steadier feeds measured, the train split's sentences and article-length items (bench/RESULTS.md,
    "Personalised feed"). The weights are ``fusion``'s; ``config`` sets how interests move and decay.
    Document vectors are kept in memory (``cache_vectors`` per model) and in the store's file, so a feed is embedded
    once, across processes too. One pair of models per store: reactions stored under others are re-embedded from their
    text when the ranker starts."""

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
        if isinstance(k, bool) or not (isinstance(k, numbers.Integral) and 0 < k <= 10**9):
            raise EdgeRankerError(f"RRF k must be a whole number from 1 to 10**9, got {k!r}")
        _check_weight("personal", personal_weight)
        _check_weight("lexical", lexical_weight)
        _check_weight("semantic query", semantic_query_weight)
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
        self.reader = Reader(semantic, cache_vectors)  # which texts the models can read, by the semantic vocabulary
        self._queries: dict[tuple[str, str, str], np.ndarray] = {}
        self._query_lock = threading.Lock()
        pair = f"+{model_key(relevance)}@{SEMANTIC_SHARE:g}" if relevance is not None else ""
        self.model_key = model_key(semantic) + pair
        self._adopt_lock = threading.Lock()
        self._adopted: tuple[int, int] | None = None  # the store's version when its reactions were last adopted
        self._interests()

    def __repr__(self) -> str:
        rel = self.relevance.name if self.relevance is not None else None
        return f"Ranker(semantic={self.semantic.name!r}, relevance={rel!r}, store={self.store!r})"

    def embed(self, docs: Iterable[Document | dict], role: str = "semantic") -> np.ndarray:
        """The vectors ``rank`` uses for ``docs`` (``role``: "semantic" or "passage"), for an app that keeps them
        itself and passes them back to ``rank``."""
        texts = [d.text for d in _documents(docs)]
        if role == "semantic":
            return self._embed(self.semantic, texts, None).copy()
        if role == "passage" and self.relevance is not None:
            return self._embed(self.relevance, texts, "passage").copy()
        raise EdgeRankerError(f"role must be 'semantic' or 'passage' (with a relevance model), got {role!r}")

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
        out = np.empty((len(sem), sem.shape[1] + pas.shape[1]), dtype=np.float32)  # float32 throughout: 0.1 ms
        np.multiply(sem, SEMANTIC_SCALE, out=out[:, : sem.shape[1]])  # per 1,000 documents, where hstack took 0.35
        np.multiply(pas, PASSAGE_SCALE, out=out[:, sem.shape[1] :])
        return out

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

    def feedback(self, doc: Document | dict, reaction: str, ts: float | None = None) -> int:
        """Like or dislike a document: store its interest vector (``interest_vectors``) with its text; returns the
        event id. Each reaction is an event: liking a document twice moves its interest twice, and liking then
        disliking it keeps both, a liked and a disliked interest; ``forget(doc_id)`` undoes a document's
        reactions, so a change of mind is ``forget`` then the new reaction."""
        (doc,) = _documents([doc])
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
        return self.store.add_feedback(doc.id, emb, reaction, self.model_key, text=doc.text, ts=ts)

    def viewed(self, doc: Document | dict, seconds: float) -> None:
        """Time the user spent on a document: it adds to the closest liked interest's weight. Time on a document no
        interest can be learnt from (``feedback`` refuses it: no word, or not one the models can read) counts
        towards none, since its closest interest would be chance."""
        (doc,) = _documents([doc])
        seconds = check_view_time(seconds)  # before the model runs
        if self._learnable(doc.text):
            self._interests()  # the liked interests it goes to, in these models' space
            self.store.add_view_time(self.interest_vectors([doc.text])[0], seconds, self.model_key)

    def forget(self, doc_id: str | int) -> int:
        """Undo the user's reactions to ``doc_id`` (the interests are rebuilt without them); returns how many
        reactions were undone."""
        if not isinstance(doc_id, str) and not _integer(doc_id):  # str() of a list would forget nothing
            raise EdgeRankerError(f"forget takes a document id (a string or an integer), got {type(doc_id).__name__}")
        return self.store.forget_document(_decimal_id(doc_id))

    def _interests(self) -> tuple[list, list]:
        """The store's interests in these models' space, after adopting the reactions stored in another's: at the
        start, and again when the store has changed since and holds none in this space, since another Ranker of
        other models on the same store (which the README advises against) moves every reaction into its own, and
        this one would rank cold. Checked so, a write of cached vectors costs no look at the reactions. An interest
        of another size than these models' vectors (a store damaged so SQL cannot see) is refused by name."""
        with self._adopt_lock:
            version = self.store.version()  # read first: a commit while adopting is looked at next time
            if self._adopted is None or (version != self._adopted and not any(self.store.interests(self.model_key))):
                self._adopt_stored_reactions()
                self._adopted = version  # once adopted: one that failed (a lock) is tried again at the next rank
        interests = self.store.interests(self.model_key)
        size = self.semantic.dim + (self.relevance.dim if self.relevance is not None else 0)
        odd = next((c.point.size for side in interests for c in side if c.point.size != size), None)
        if odd is not None:
            raise damaged_store(
                self.store.path, f"interests of {odd} numbers under {self.model_key!r}, whose models give {size}"
            )
        return interests

    def _adopt_stored_reactions(self) -> None:
        """Reactions stored under another model key (an earlier release, other models, another semantic share) are
        re-embedded from their stored text into these models' space, so a model update keeps the user's interests.
        Those these models cannot learn from, as ``feedback`` refuses them (no word, or one they cannot read), are
        left out, once (``leave_out``): they stay stored as they are, and models that read them can take them later."""
        stale = self.store.stale_texts(self.model_key, LEARNABLE_RULE)
        textless = sum(t is None for _, t in stale)
        if textless:  # once per model key, as they are left out below (at each start of a read-only store)
            log.warning(
                "%d stored reaction%s no text, so %s cannot take %s in",
                textless,
                " has" if textless == 1 else "s have",
                self.model_key,
                "it" if textless == 1 else "them",
            )
        left = [i for i, t in stale if t is None or not self._learnable(t)]
        if left:
            log.info("leaving %d stored reactions %s cannot learn from out of its interests", len(left), self.model_key)
            if not self.store.read_only:  # a read-only store looks again at each start
                self.store.leave_out(self.model_key, LEARNABLE_RULE, left)
            gone = set(left)
            stale = [(i, t) for i, t in stale if i not in gone]
        if stale:
            log.info("re-embedding %d stored reactions for %s", len(stale), self.model_key)
            vectors = self.interest_vectors([t for _, t in stale])
            self.store.move_to_model(self.model_key, [i for i, _ in stale], vectors)

    def _learnable(self, text: str) -> bool:
        """Whether a text can teach an interest: it has a word, and the models can read it (``LEARNABLE_RULE``)."""
        return has_word(text, self.semantic.cut_chars) and self.reader.readable(text)

    def rank(
        self,
        docs: Iterable[Document | dict],
        query: str | None = None,
        now: float | None = None,
        semantic_vectors: np.ndarray | None = None,
        passage_vectors: np.ndarray | None = None,
        personal_weight: float | None = None,
    ) -> Ranking:
        """Rank ``docs`` (``Document``s or dicts with ``id``, ``text``, optional ``published``) by the stored
        interests and, when given, ``query``; returns a ``Ranking``, best first. ``now``: unix seconds for the
        interests' decay (default: the clock). ``personal_weight``: how much the interests move this query's results
        (default: the Ranker's; 0: the query alone; a feed without a query is ordered by the interests whatever it
        is). ``semantic_vectors`` / ``passage_vectors``: the documents' vectors
        from ``embed``, when the app kept them (else they come from the cache or are computed); both are checked
        whenever given, and the semantic ones also serve a query whose words the documents lack."""
        docs = _documents(docs)
        if not docs:
            return Ranking([], np.zeros(0), {}, None, None, None)
        ids = list(map(attrgetter("id"), docs))
        if len(set(ids)) != len(ids):
            seen: dict[str, int] = {}
            for i, d in enumerate(ids):
                if seen.setdefault(d, i) != i:
                    raise EdgeRankerError(f"document id {d!r} appears twice (positions {seen[d] + 1} and {i + 1})")
        now = time.time() if now is None else now
        if isinstance(now, bool) or not (isinstance(now, numbers.Real) and finite(now)):
            raise EdgeRankerError(f"'now' must be finite unix seconds, got {now!r}")
        now = float(now)  # a Fraction or Decimal-like Real would fail inside numpy
        strength = self.personal_weight if personal_weight is None else _check_weight("personal", personal_weight)
        query = clean_text(query, "query").strip() if query is not None else None
        # only punctuation or emoji (within what the semantic model reads, as the JVM decides): nothing to match
        if query and not has_word(query, self.semantic.cut_chars):
            query = None
        if query and self.relevance is None:
            raise EdgeRankerError(
                "a query needs a relevance model: give the Ranker one (Encoder.load('relevance'); on the command line "
                "--relevance relevance), or rank without the query"
            )
        positive, negative = (alive(c, now, self.config) for c in self._interests())
        use_personal = len(positive) >= self.config.min_positive_cois or bool(negative)
        use_query = bool(query) and self.relevance is not None
        n = len(docs)
        texts = list(map(attrgetter("text"), docs))
        parts: dict[str, np.ndarray] = {}
        personal = relevance = lexical = semantic = cover = None
        emb = _given(semantic_vectors, n, self.semantic.dim, "semantic_vectors")
        if passage_vectors is not None and self.relevance is None:
            raise EdgeRankerError("passage_vectors need a relevance model")
        passages = _given(passage_vectors, n, self.relevance.dim, "passage_vectors") if self.relevance else None
        # a document without a word goes last, for the interests, the query and the newest-first order alike
        wordless = np.array([not has_word(t, self.semantic.cut_chars) for t in texts], bool)
        # one the models cannot read goes last for the interests, and its vectors say nothing for the query
        unread = self.reader.unreadable(texts) if use_personal or use_query else np.zeros(n, bool)
        if use_personal:
            emb = self._embed(self.semantic, texts, None) if emb is None else emb
            if self.relevance is not None:
                passages = self._embed(self.relevance, texts, "passage") if passages is None else passages
            interest = self.interest_vectors(texts, emb, passages)
            personal = personal_scores(interest, positive, negative, now, self.config)
        known = ~(wordless | unread)
        query_score = None
        if use_query:
            rel = self.relevance
            passages = self._embed(rel, texts, "passage") if passages is None else passages
            relevance = passages @ self._query_vector(rel, query, "query")
            words = terms(rel.tokenizer, rel.cut(query))
            feed = self.terms.feed(rel, texts)
            cover = coverage(words, feed)
            if self.lexical_weight:
                lexical = bm25(words, feed)
            if self.semantic_query_weight and cover < 1.0:
                emb = self._embed(self.semantic, texts, None) if emb is None else emb
                semantic = emb @ self._query_vector(self.semantic, query, None)
            blind = not self.reader.readable(query)
            score = query_scores(
                _neutral(relevance, unread, blind),
                lexical,
                self.lexical_weight,
                semantic=None if semantic is None else _neutral(semantic, unread, blind),
                cover=cover,
                semantic_weight=self.semantic_query_weight,
            )
            if not (blind and np.ptp(score) == 0):  # a query the models cannot read and no document has its words
                query_score = score
                lift = np.zeros(n)
                if personal is not None:  # ``known`` leaves out the wordless: they get no lift
                    lift = personal_lift(personal.score, matched(words, feed), known, strength)
                parts["query"] = query_part(score, lift, wordless)
                if personal is not None:
                    parts["personal"] = lift
        if not parts and personal is not None:  # a feed: the interests' order
            parts["personal"] = rrf(np.where(known, personal.score, -np.inf), self.k)
        if not parts:  # cold start: newest first, unknown dates last, then input order
            recency = np.array([d.published if d.published is not None else -math.inf for d in docs])
            recency = np.where(np.isfinite(recency), recency, -1e18) - np.arange(n) * 1e-9
            parts["recency"] = rrf(np.where(wordless, -np.inf, recency), self.k)
        total = np.sum(list(parts.values()), axis=0)
        log.debug("ranked %d documents (%s)", n, ", ".join(parts))
        return Ranking(ids, total, parts, personal, relevance, lexical, semantic, cover, query_score)


def model_key(encoder: Encoder) -> str:
    """A model's identity in stored data: its name, the start of a hash of what its manifest says makes a text's
    vector (the graph, the tokenizer and vocabulary files, max_length, each role's prefix) and, when it reads long
    texts in windows, how many. A history stored under another key is embedded again, from its stored texts: so a
    folder whose tokenizer, max_length or prefixes changed under the same graph does not keep vectors the model no
    longer makes. Each prefix goes in as its own hash, so no prefix can spell the separators."""
    m = encoder.manifest
    sha = [m.files.get(name, {}).get("sha256", "") for name in (m.onnx, m.tokenizer, m.vocab)]
    roles = [f"{role}\t{_sha256(prefix)}" for role, prefix in sorted(m.prefixes.items())]
    made = "\n".join([*sha, str(m.max_length), *roles])
    key = f"{m.name}:{_sha256(made)[:16]}"
    return key if m.windows == 1 else f"{key}:{m.windows}w"


def _sha256(text: str) -> str:
    """A text's SHA-256 in hex, of its UTF-8 bytes, as the JVM core's Encoder.sha256 reads them."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _neutral(cosine: np.ndarray, unread: np.ndarray, blind: bool) -> np.ndarray:
    """A query's cosines where those that say nothing are neutral: all of them when the models cannot read the
    query (``blind``), else those of the documents they cannot read, at the mean of the others'. BM25 then ranks
    by the words alone."""
    if blind:
        return np.zeros_like(cosine)
    if not unread.any():
        return cosine
    known = cosine[~unread]
    return np.where(unread, known.mean() if known.size else 0.0, cosine)


def _documents(docs: Iterable[Document | dict]) -> list[Document]:
    if docs is None or isinstance(docs, (str, bytes, dict, Document)):
        raise EdgeRankerError(f"docs must be a list of Document or {{'id', 'text'}} dicts, got {type(docs).__name__}")
    if not isinstance(docs, Iterable):
        raise EdgeRankerError(f"docs must be a list of Document or {{'id', 'text'}} dicts, got {type(docs).__name__}")
    docs = docs if isinstance(docs, list) else list(docs)  # a generator is read once
    if set(map(type, docs)) <= {Document}:  # the common case, checked without a Python step per document
        return docs
    return [d if isinstance(d, Document) else Document.from_dict(d) for d in docs]


def _check_model(role: str, model: object) -> None:
    """A model the Ranker can use: an ``Encoder`` or a wrapper with the ``MODEL_API`` it calls."""
    missing = [a for a in MODEL_API if not hasattr(model, a)]
    if missing:
        raise EdgeRankerError(
            f"the {role} model must be an Encoder (Encoder.load({role!r})) or a wrapper of one; "
            f"{type(model).__name__} lacks {', '.join(missing)}"
        )


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
